// The workspace folder from the workbench: which folder the hub has open, and opening another (a path the user typed;
// the desktop app's native folder dialog restarts the hub on the folder instead). A folder that does not exist, is not
// a folder or not a project is a 4xx; one with files the hub cannot load is a 422 listing them, unless opened anyway.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { bool, replies } from '../schemas.js';
import { WorkspaceProblemsError } from './workspace-host.js';

const problemsSchema = {
  type: 'array',
  items: { type: 'object', required: ['file', 'msg'], properties: { file: { type: 'string' }, msg: { type: 'string' } } },
} as const;

const openingSchema = {
  type: 'object',
  required: ['dir', 'nodeDir', 'pipes', 'systems', 'problems', 'removed', 'opened'],
  properties: {
    dir: { type: 'string' },
    nodeDir: { type: 'string', description: 'the folder that holds pipes/ and systems/ (the node/ child when there is one)' },
    pipes: { type: 'integer' },
    systems: { type: 'integer' },
    problems: { ...problemsSchema, description: 'files the hub cannot load, as the workspace loader reports them' },
    removed: { type: 'array', items: { type: 'string' }, description: 'pipes and systems of this hub that the folder does not hold: opening removes them' },
    opened: { ...bool, description: 'false for a dry run' },
  },
} as const;

const refusedSchema = {
  type: 'object',
  required: ['error', 'detail', 'problems'],
  properties: { error: { type: 'string' }, detail: { type: ['string', 'null'] }, problems: problemsSchema },
} as const;

export async function workspaceOpenRoutes(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  const tags = ['desktop'];

  app.get('/workspace/folder', {
    schema: {
      tags,
      summary: 'The workspace folder the hub has open (null: none)',
      response: replies({ 200: { type: 'object', required: ['dir'], properties: { dir: { type: ['string', 'null'] }, nodeDir: { type: ['string', 'null'] } } } }),
    },
    handler: async () => ({ dir: ctx.workspaces.dir ?? null, nodeDir: ctx.workspaces.workspace?.nodeDir ?? null }),
  });

  app.post<{ Body: { path: string; openWithProblems?: boolean; dryRun?: boolean } }>('/workspace/open', {
    schema: {
      tags,
      summary: "Open another workspace folder: the hub's configuration becomes the folder's, which is watched and written back to",
      description:
        'With `dryRun` nothing changes: the answer says what the folder holds, its problems and what would be removed from the hub. A folder with files the hub cannot load is refused (422, with `problems`) unless `openWithProblems`.',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['path'],
        properties: {
          path: { type: 'string', maxLength: 4096, description: 'the absolute path of the project folder' },
          openWithProblems: bool,
          dryRun: bool,
        },
      },
      response: replies({ 200: openingSchema, 422: refusedSchema }),
    },
    handler: async (req, reply) => {
      const { path, openWithProblems, dryRun } = req.body;
      try {
        return ctx.workspaces.open(path, { openWithProblems: openWithProblems === true, dryRun: dryRun === true });
      } catch (err) {
        if (!(err instanceof WorkspaceProblemsError)) throw err;
        return reply.code(422).send({ error: err.message, detail: err.detail ?? null, problems: err.opening.problems });
      }
    },
  });
}
