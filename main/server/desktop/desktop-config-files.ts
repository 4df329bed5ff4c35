// The workspace's configuration files as files: the text a pipe's or system's file holds (what the editor shows), and
// the files the hub could not load (not JSON, not a configuration), with where the problem is.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { replies } from '../schemas.js';
import { HubError } from '../../../hub-core/base/index.js';
import { workspaceNodeDir } from '../../../hub-core/project/index.js';
import { readConfigFiles } from '../../../hub-core/config/index.js';
import { configFilePath } from '../../../hub-core/config/index.js';
import { sesamLayout, updatedFileText } from '../../../hub-core/config/index.js';
import { configKind, type ConfigKind } from '../../../hub-core/config/index.js';
import { isJsonObject } from '../../../hub-core/base/index.js';
import { readTextFile } from '../../../hub-core/base/index.js';

const fileSchema = {
  type: 'object',
  required: ['file', 'text'],
  properties: {
    file: { type: ['string', 'null'], description: "the file in the workspace's node folder that holds it (null without a workspace)" },
    text: { type: 'string', description: 'what the file holds for this entity (the layout of `sesam format` for a new file)' },
  },
} as const;

const problemSchema = {
  type: 'object',
  required: ['problems'],
  properties: {
    problems: {
      type: 'array',
      items: {
        type: 'object',
        required: ['file', 'msg', 'line', 'pipe', 'kept'],
        properties: {
          file: { type: 'string' },
          msg: { type: 'string' },
          line: { type: ['integer', 'null'], description: 'the line of a JSON syntax error' },
          pipe: { type: ['string', 'null'], description: 'the pipe id the file name stands for (pipes/<id>.conf.json)' },
          kept: { type: 'boolean', description: 'the hub holds that pipe still: it runs the version last loaded from the file' },
        },
      },
    },
  },
} as const;

/** The line of a JSON.parse error: V8 says "(line N column M)" or "at position N". */
export function errorLine(msg: string, text: string | undefined): number | null {
  const line = /\(line (\d+) column \d+\)/.exec(msg);
  if (line) return Number(line[1]);
  const pos = /at position (\d+)/.exec(msg);
  if (pos && text !== undefined) return text.slice(0, Number(pos[1])).split('\n').length;
  if (/Unexpected end of JSON input/.test(msg) && text !== undefined) return text.split('\n').length;
  return null;
}

const pipeOfFile = (file: string): string | null => {
  const m = /^pipes\/(.+)\.conf\.json$/.exec(file);
  return m ? decodeURIComponent(m[1]!) : null;
};

type RawJson = { rawJSON?: (text: string) => unknown };

/** JSON text parsed with every number kept as written (1.0, 1e3): formatting must not change a value's text. */
function parseKeepingNumbers(text: string): unknown {
  const raw = (JSON as RawJson).rawJSON;
  const reviver = (_key: string, value: unknown, context?: { source?: string }): unknown =>
    raw && typeof value === 'number' && context?.source !== undefined && context.source !== String(value) ? raw(context.source) : value;
  return JSON.parse(text, reviver as (this: unknown, key: string, value: unknown) => unknown);
}

export async function configFileRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  const tags = ['desktop'];

  app.post<{ Body: { text: string } }>(
    '/config-format',
    {
      schema: {
        tags,
        summary: "A JSON text in the layout of the service's tooling (`sesam format`), as workspace files are written: the editor's Format command",
        body: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: { type: 'string' } } },
        response: replies({ 200: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } }),
      },
    },
    async (req) => {
      let value: unknown;
      try {
        value = parseKeepingNumbers(req.body.text);
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        const line = errorLine(msg, req.body.text);
        throw new HubError(400, 'the text is not valid JSON', line === null ? msg : `line ${line}: ${msg}`);
      }
      return { text: sesamLayout(value) };
    },
  );
  app.get<{ Querystring: { kind: ConfigKind; id: string } }>(
    '/config-file',
    {
      schema: {
        tags,
        summary: 'The text of the file that holds a pipe, system or the node metadata',
        querystring: {
          type: 'object',
          required: ['kind', 'id'],
          properties: { kind: { type: 'string', enum: ['pipe', 'system', 'metadata'] }, id: { type: 'string', minLength: 1 } },
        },
        response: replies({ 200: fileSchema }),
      },
    },
    async (req) => {
      const { kind, id } = req.query;
      const entity = ctx.hub.config.get(kind, id);
      if (!entity) throw new HubError(404, `no ${kind} ${JSON.stringify(id)}`);
      if (ctx.workspaceDir === undefined) return { file: null, text: sesamLayout(entity) };
      const nodeDir = workspaceNodeDir(ctx.workspaceDir);
      const found = readConfigFiles(nodeDir).entities.find((r) => configKind(r.entity) === kind && r.entity._id === id);
      if (!found) return { file: configFilePath(kind, id), text: sesamLayout(entity) };
      let text: string;
      try {
        text = readTextFile(join(nodeDir, found.file));
      } catch {
        return { file: found.file, text: sesamLayout(entity) };
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      // A file of several entities: the editor holds this one, laid out as its own file would be.
      if (!isJsonObject(parsed)) return { file: found.file, text: sesamLayout(entity) };
      return { file: found.file, text: updatedFileText(text, entity) };
    },
  );

  app.get(
    '/workspace/problems',
    {
      schema: {
        tags,
        summary: "The workspace's configuration files the hub could not load, and why",
        response: replies({ 200: problemSchema }),
      },
    },
    async () => {
      if (ctx.workspaceDir === undefined) return { problems: [] };
      const nodeDir = workspaceNodeDir(ctx.workspaceDir);
      const read = readConfigFiles(nodeDir);
      return {
        problems: read.problems.map((p) => {
          let text: string | undefined;
          try {
            text = readTextFile(join(nodeDir, p.file));
          } catch {
            text = undefined;
          }
          const pipe = pipeOfFile(p.file);
          const kept = pipe !== null && read.unreadable.includes(p.file) && ctx.hub.pipes.get(pipe) !== undefined;
          return { file: p.file, msg: p.msg, line: read.unreadable.includes(p.file) ? errorLine(p.msg, text) : null, pipe, kept };
        }),
      };
    },
  );
}
