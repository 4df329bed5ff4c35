// The workbench's "Pull sample…": POST /desktop/workspace/sample pins a scrubbed sample of a pipe's input, read from a
// saved remote instance, as the pipe's conditional source's "test" alternative — the same reading and writing as
// `datahub sample pull` (main/remote/sample-pin.ts) — then reloads the workspace so the hub holds the new source.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { HubError, badRequest } from '../../../hub-core/base/index.js';
import { parseScrubPatterns, workspaceNodeDir } from '../../../hub-core/project/index.js';
import { InstanceClient } from '../../remote/config-sync.js';
import { readSample, sampleTarget, scrubKey, writeSample } from '../../remote/sample-pin.js';
import { instanceOf } from './desktop-remote.js';
import { replies, str } from '../schemas.js';

export const SAMPLE_MAX_COUNT = 10_000;

interface SampleBody {
  pipe: string;
  conn: string;
  count?: number;
  filter?: string;
  scrub?: string;
}

export async function sampleRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  app.post<{ Body: SampleBody }>('/workspace/sample', {
    schema: {
      tags: ['desktop'],
      summary: "Pin a scrubbed sample of a pipe's input, read from a saved remote instance, as its source's test alternative",
      description:
        'Like `datahub sample pull`: the pipe file of the open workspace gets a conditional source (condition $ENV(node-env)) ' +
        'whose "test" alternative embeds the sample and whose other alternative is the real source; properties matching a ' +
        'scrub pattern are replaced by stable fakes before anything is written. test-env.json gets "node-env": "test" when unset.',
      body: {
        type: 'object',
        required: ['pipe', 'conn'],
        additionalProperties: false,
        properties: {
          pipe: { ...str, minLength: 1, maxLength: 500 },
          conn: { ...str, minLength: 1, maxLength: 200, description: 'id of a saved remote instance connection' },
          count: { type: 'integer', minimum: 1, maximum: SAMPLE_MAX_COUNT, description: 'how many entities (default 10)' },
          filter: { ...str, maxLength: 20_000, description: 'a DTL predicate (JSON) on each entity as _S' },
          scrub: { ...str, maxLength: 2000, description: 'comma-separated property name patterns (* and ?, any case)' },
        },
      },
      response: replies({
        200: {
          type: 'object',
          required: ['pipe', 'file', 'from', 'instance', 'count', 'read', 'scrubbed', 'patterns', 'envNote'],
          properties: {
            pipe: str,
            file: { ...str, description: "the pipe's file, relative to the node folder" },
            from: { ...str, description: 'where the sample was read, in words' },
            instance: str,
            count: { type: 'integer', description: 'entities written' },
            read: { type: 'integer', description: 'entities looked at' },
            scrubbed: { type: 'integer', description: 'properties replaced by fakes' },
            patterns: { type: 'array', items: str },
            envNote: { type: ['string', 'null'], description: 'what was done to test-env.json' },
          },
        },
        409: { $ref: 'Error#' },
        422: { $ref: 'Error#' },
        502: { $ref: 'Error#' },
        503: { $ref: 'Error#' },
      }),
    },
    handler: async (req) => {
      const dir = ctx.workspaceDir;
      if (dir === undefined) throw new HubError(409, 'no workspace folder is open', 'open a project folder first: the sample is written into its pipe file');
      const filter = req.body.filter === undefined || req.body.filter.trim() === '' ? undefined : req.body.filter;
      const patterns = req.body.scrub === undefined ? [] : parseScrubPatterns(req.body.scrub);
      if (req.body.scrub !== undefined && req.body.scrub.trim() !== '' && patterns.length === 0) throw badRequest('the scrub patterns name no property', 'give patterns such as *email*, *ssn*');
      const nodeDir = workspaceNodeDir(dir);
      const target = sampleTarget(nodeDir, req.body.pipe);
      const { connection, token } = await instanceOf(ctx, req.body.conn);
      const options = { count: req.body.count ?? 10, filter, patterns, key: patterns.length > 0 ? scrubKey(ctx.dataDir) : Buffer.alloc(0) };
      const sample = await readSample(new InstanceClient(connection.url, token), connection.label, target, options);
      const pinned = writeSample(nodeDir, target, sample, options);
      ctx.workspaces.workspace?.load();
      return {
        pipe: target.pipe,
        file: target.file,
        from: sample.from,
        instance: connection.label,
        count: pinned.entities.length,
        read: sample.read,
        scrubbed: pinned.scrubbed,
        patterns,
        envNote: pinned.envNote ?? null,
      };
    },
  });
}
