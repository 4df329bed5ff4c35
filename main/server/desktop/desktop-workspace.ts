// The workspace's test runner: the tests of the folder the hub was opened on (--workspace), run like `datahub test`
// in a fresh temporary hub inside a worker thread. One run at a time; a second request while one runs is a 409.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { bool, replies } from '../schemas.js';
import { HubError } from '../../../hub-core/base/index.js';
import { workspaceNodeDir } from '../../../hub-core/project/index.js';
import { readTestSpecs } from '../../../hub-core/project/index.js';
import type { WorkspaceTestReport } from './workspace-test-run.js';
import type { WorkspaceTestTasks } from './workspace-test-tasks.js';
import type { NewTestRequest, NewTestResult } from './workspace-test-add.js';
import type { WorkspaceTask } from './workspace-test-worker.js';
import { PIPE_STAGES } from '../../../hub-core/preview/index.js';

export const conflict = { $ref: 'Error#' } as const;
const nullableStr = { type: ['string', 'null'] } as const;

const specSchema = {
  type: 'object',
  required: ['name', 'pipe', 'file', 'stage', 'ignore'],
  properties: { name: { type: 'string' }, pipe: { type: 'string' }, file: { type: 'string' }, stage: { type: 'string' }, ignore: bool },
} as const;

const workspaceSchema = {
  type: 'object',
  required: ['dir', 'nodeDir', 'tests', 'problem', 'running'],
  properties: {
    dir: { type: 'string' },
    nodeDir: { type: 'string' },
    tests: { type: 'array', items: specSchema },
    problem: { ...nullableStr, description: 'why the test specs cannot be read' },
    running: { ...bool, description: 'a test run is in progress' },
  },
} as const;

const valueSchema = {} as const;
export const diffSchema = {
  type: 'object',
  required: ['id', 'kind', 'changes'],
  properties: {
    id: { type: 'string' },
    kind: { type: 'string', enum: ['missing', 'unexpected', 'changed'] },
    entity: { type: 'object', additionalProperties: true },
    changes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'keys'],
        properties: {
          path: { type: 'string', description: 'the property\'s dotted path' },
          keys: { type: 'array', items: { type: 'string' }, description: 'the same path as property names (names may hold dots)' },
          expected: valueSchema,
          actual: valueSchema,
          note: { type: 'string' },
        },
      },
    },
  },
} as const;

export const testResultSchema = {
  type: 'object',
  required: ['name', 'pipe', 'file', 'stage', 'status', 'error', 'diffs', 'diffText'],
  properties: {
    name: { type: 'string' },
    pipe: { type: 'string' },
    file: { type: 'string' },
    stage: { type: 'string' },
    status: { type: 'string', enum: ['passed', 'failed', 'ignored'] },
    error: nullableStr,
    diffs: { type: 'array', items: diffSchema },
    diffText: { type: 'array', items: { type: 'string' } },
    pipes: {
      type: 'array',
      description: "the pipes the test's result depends on that ran, with the milliseconds each took",
      items: {
        type: 'object',
        required: ['pipe', 'ms', 'runs', 'status'],
        properties: { pipe: { type: 'string' }, ms: { type: 'integer' }, runs: { type: 'integer' }, status: { type: 'string' } },
      },
    },
  },
} as const;

export const reportSchema = {
  type: 'object',
  required: ['update', 'rounds', 'converged', 'pipes', 'tests', 'passed', 'failed', 'ignored', 'durationMs'],
  properties: {
    update: bool,
    rounds: { type: 'integer' },
    converged: bool,
    pipes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['pipe', 'runs', 'processed', 'changes', 'status', 'error'],
        properties: {
          pipe: { type: 'string' },
          runs: { type: 'integer' },
          processed: { type: 'integer' },
          changes: { type: 'integer' },
          status: { type: 'string', enum: ['ok', 'failed', 'skipped'] },
          error: nullableStr,
        },
      },
    },
    tests: { type: 'array', items: testResultSchema },
    passed: { type: 'integer' },
    failed: { type: 'integer' },
    ignored: { type: 'integer' },
    durationMs: { type: 'integer' },
    groups: {
      type: 'array',
      description: 'groups of tests with no pipe or dataset in common that ran apart, side by side (when there were several)',
      items: {
        type: 'object',
        required: ['tests', 'pipes', 'ms'],
        properties: { tests: { type: 'array', items: { type: 'string' } }, pipes: { type: 'array', items: { type: 'string' } }, ms: { type: 'integer' } },
      },
    },
  },
} as const;

export function requireWorkspace(ctx: DesktopContext): { dir: string; nodeDir: string } {
  const dir = ctx.workspaceDir;
  if (dir === undefined) {
    throw new HubError(409, 'no workspace is open', 'start the hub on a project folder: datahub serve --workspace <dir>');
  }
  const nodeDir = workspaceNodeDir(dir);
  if (!['pipes', 'node-metadata.conf.json'].some((f) => existsSync(join(nodeDir, f)))) {
    throw new HubError(400, `${dir} is not a project`, 'it has neither node/pipes/ nor node/node-metadata.conf.json');
  }
  return { dir, nodeDir };
}

const newTestSchema = {
  type: 'object',
  required: ['name', 'pipe', 'stage', 'specFile', 'file', 'specText', 'entities', 'replacesFile', 'written'],
  properties: {
    name: { type: 'string' },
    pipe: { type: 'string' },
    stage: { type: 'string' },
    specFile: { type: 'string', description: 'the spec file, relative to node/expected/' },
    file: { type: 'string', description: 'the expected file, relative to node/expected/' },
    specText: { type: 'string', description: 'what the spec file holds' },
    entities: { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'what the expected file holds' },
    replacesFile: { ...bool, description: 'an expected file of that name exists and is replaced' },
    written: bool,
  },
} as const;

export async function workspaceRoutes(app: FastifyInstance, ctx: DesktopContext, tasks: WorkspaceTestTasks): Promise<void> {
  const tags = ['desktop'];

  app.get('/workspace', {
    schema: {
      tags,
      summary: 'The open workspace folder and its tests (node/expected/*.test.json)',
      response: replies({ 200: workspaceSchema, 409: conflict }),
    },
    handler: async () => {
      const { dir, nodeDir } = requireWorkspace(ctx);
      let tests: { name: string; pipe: string; file: string; stage: string; ignore: boolean }[] = [];
      let problem: string | null = null;
      try {
        tests = readTestSpecs(nodeDir).map((s) => ({ name: s.name, pipe: s.pipe, file: s.file, stage: s.stage, ignore: s.ignore }));
      } catch (e) {
        problem = e instanceof HubError && e.detail ? `${e.message}: ${e.detail}` : e instanceof Error ? e.message : String(e);
      }
      return { dir, nodeDir, tests, problem, running: tasks.running };
    },
  });

  const exclusive = <T>(task: WorkspaceTask): Promise<T> => tasks.exclusive<T>(task);

  app.post<{ Body: { update?: boolean; maxRounds?: number; tests?: string[] } | undefined }>('/workspace/test', {
    schema: {
      tags,
      summary: 'Run the workspace tests in a fresh temporary hub, like `datahub test`',
      description:
        'With `update: true` the expected files are rewritten from the pipes\' output (`datahub test --update`). With `tests`, only those tests are checked (or updated: "accept as expected") and only their pipes and the pipes upstream of them run. One run at a time.',
      body: {
        type: ['object', 'null'],
        additionalProperties: false,
        properties: {
          update: bool,
          maxRounds: { type: 'integer', minimum: 1, maximum: 1000 },
          tests: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 }, description: 'names of the tests to run (default: all)' },
        },
      },
      response: replies({ 200: reportSchema, 409: conflict, 504: conflict }),
    },
    handler: async (req) => {
      const { dir } = requireWorkspace(ctx);
      const body = req.body ?? {};
      return exclusive<WorkspaceTestReport>({
        task: 'run',
        dir,
        options: { update: body.update === true, ...(body.maxRounds !== undefined ? { maxRounds: body.maxRounds } : {}), ...(body.tests !== undefined ? { names: body.tests } : {}) },
      });
    },
  });

  app.post<{ Body: NewTestRequest }>('/workspace/tests', {
    schema: {
      tags,
      summary: 'Add a test to a pipe: expected/<name>.test.json and its expected file, from the pipe\'s output in a test run',
      description:
        'Without `confirm` nothing is written: the answer shows what the expected file would hold. With `confirm: true` both files are written. The pipes run in a fresh temporary hub, as `datahub test` runs them. A test of that name already there is a 409.',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'pipe'],
        properties: {
          name: { type: 'string', minLength: 1, description: 'the test\'s name (its file names); usually the pipe id' },
          pipe: { type: 'string', minLength: 1 },
          stage: { type: 'string', enum: [...PIPE_STAGES] },
          blacklist: { type: 'array', items: { type: 'string' }, description: 'property paths left out of the comparison ("a.b", "*" for any key)' },
          ignore: bool,
          ignore_deletes: bool,
          confirm: bool,
        },
      },
      response: replies({ 200: newTestSchema, 409: conflict, 504: conflict }),
    },
    handler: async (req) => {
      const { dir } = requireWorkspace(ctx);
      return exclusive<NewTestResult>({ task: 'add', dir, request: req.body });
    },
  });
}
