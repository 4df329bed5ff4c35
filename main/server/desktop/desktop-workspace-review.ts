// Review and accept in the Tests view: accept a failing test's output (all, one entity, one property) into its
// expected file, ignore a property from now on (its .test.json's blacklist), and the "re-run affected tests on save"
// switch with the last run it made. Every accept writes one file of the workspace and nothing else.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { bool, replies } from '../schemas.js';
import { conflict, reportSchema, requireWorkspace, testResultSchema } from './desktop-workspace.js';
import type { WorkspaceTestTasks } from './workspace-test-tasks.js';
import type { WorkspaceTestLoop } from './workspace-test-loop.js';
import type { AcceptAnswer, AcceptRequest, IgnoreRequest } from './workspace-test-accept.js';


const propertyPath = {
  type: 'array',
  minItems: 1,
  maxItems: 100,
  items: { type: 'string', minLength: 1 },
  description: 'the property\'s path as property names, as a diff\'s `keys` gives it',
} as const;

const answerSchema = {
  type: 'object',
  required: ['file', 'written', 'message', 'result'],
  properties: {
    file: { type: 'string', description: 'the file written, relative to the node folder' },
    written: { ...bool, description: 'false when the file held that already' },
    message: { type: 'string' },
    pattern: { type: 'string', description: 'the blacklist pattern added (ignore)' },
    result: testResultSchema,
  },
} as const;

const loopSchema = {
  type: 'object',
  required: ['enabled', 'running', 'last'],
  properties: {
    enabled: bool,
    running: { ...bool, description: 'a test task is in progress' },
    last: {
      type: ['object', 'null'],
      required: ['seq', 'at', 'changed', 'tests', 'unrelated', 'status', 'report', 'error'],
      properties: {
        seq: { type: 'integer' },
        at: { type: 'string' },
        changed: { type: 'array', items: { type: 'string' } },
        tests: {
          type: 'array',
          items: { type: 'object', required: ['name', 'reasons'], properties: { name: { type: 'string' }, reasons: { type: 'array', items: { type: 'string' } } } },
        },
        unrelated: { type: 'array', items: { type: 'string' } },
        status: { type: 'string', enum: ['running', 'done', 'failed'] },
        report: { anyOf: [{ type: 'null' }, reportSchema] },
        error: { type: ['string', 'null'] },
      },
    },
  },
} as const;

export async function workspaceReviewRoutes(app: FastifyInstance, ctx: DesktopContext, tasks: WorkspaceTestTasks, loop: WorkspaceTestLoop): Promise<void> {
  const tags = ['desktop'];

  app.post<{ Body: AcceptRequest }>('/workspace/test/accept', {
    schema: {
      tags,
      summary: "Accept a test's output into its expected file: all of it, one entity, or one property of one entity",
      description:
        "The test's pipe and the pipes upstream of it run in a fresh temporary hub first. Only the expected file is written, keeping its layout (a new file gets the layout of `datahub test --update`). A pipe that failed is a 409: nothing is accepted. The answer holds the test's result against the file as written.",
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['test'],
        properties: {
          test: { type: 'string', minLength: 1 },
          entity: { type: 'string', description: 'only this entity (its id as the diff names it)' },
          property: { ...propertyPath, description: 'only this property of `entity`: its path as property names' },
        },
      },
      response: replies({ 200: answerSchema, 409: conflict, 504: conflict }),
    },
    handler: async (req) => {
      const { dir } = requireWorkspace(ctx);
      const answer = await tasks.exclusive<AcceptAnswer>({ task: 'accept', dir, request: req.body });
      loop.absorb(answer.file);
      return answer;
    },
  });

  app.post<{ Body: IgnoreRequest }>('/workspace/test/ignore', {
    schema: {
      tags,
      summary: "Ignore a property from now on: add it to the `blacklist` of the test's .test.json",
      description:
        'Only expected/<test>.test.json is written (its layout kept); the pattern matches that one property path (dots in names as "\\.", pattern characters in brackets). The test then runs again; the answer holds its result.',
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['test', 'property'],
        properties: { test: { type: 'string', minLength: 1 }, property: propertyPath },
      },
      response: replies({ 200: answerSchema, 409: conflict, 504: conflict }),
    },
    handler: async (req) => {
      const { dir } = requireWorkspace(ctx);
      const answer = await tasks.exclusive<AcceptAnswer>({ task: 'ignore', dir, request: req.body });
      loop.absorb(answer.file);
      return answer;
    },
  });

  app.get('/workspace/test/loop', {
    schema: {
      tags,
      summary: '"Re-run affected tests on save": whether it is on, and the last run it made (which tests, why, their results)',
      response: replies({ 200: loopSchema, 409: conflict }),
    },
    handler: async () => {
      requireWorkspace(ctx);
      return { ...loop.state(), running: tasks.running };
    },
  });

  app.put<{ Body: { enabled: boolean } }>('/workspace/test/loop', {
    schema: {
      tags,
      summary: 'Turn "re-run affected tests on save" on or off',
      description: 'While on, every configuration change the hub writes to the workspace runs the tests it can affect (the selection of `datahub test --watch`).',
      body: { type: 'object', additionalProperties: false, required: ['enabled'], properties: { enabled: bool } },
      response: replies({ 200: loopSchema, 409: conflict }),
    },
    handler: async (req) => {
      requireWorkspace(ctx);
      return { ...loop.setEnabled(req.body.enabled), running: tasks.running };
    },
  });
}
