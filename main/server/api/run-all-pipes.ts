// The hosted service's internal scheduler as its command-line client calls it (`sesam run`, `sesam test`): run every
// pipe until nothing changes, its status, its log and stopping it. Not in the instance API spec; the parameters and
// answers follow the client (sesam-py). The engine is hub-core/pipes/run-all-pipes.ts, shared with `datahub test`.
import type { FastifyInstance } from 'fastify';
import type { RouteContext } from '../route-context.js';
import { anyObject, int, isTrue, pyBool, str, replies } from '../schemas.js';
import { badRequest, notFound } from '../../../hub-core/base/index.js';
import { RUN_ALL_DEFAULTS, type RunAll, type RunAllOptions } from '../../../hub-core/pipes/index.js';
import type { JsonObject } from '../../../hub-core/base/index.js';


interface RunAllQuery {
  extra_zero_runs?: number;
  max_run_time?: number;
  max_runs?: number;
  request_mode?: 'sync' | 'async';
  scheduler_mode?: 'active' | 'poll';
  delete_input_datasets?: string;
  check_input_pipes?: string;
  reset_pipes_and_delete_sink_datasets?: string;
  output_run_statistics?: string;
  disable_pipes?: string;
}

const statusReply = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['running', 'success', 'failed', 'not-running'] },
    token: { type: ['string', 'null'] },
    additional_info: { type: ['string', 'null'] },
    started: { type: ['string', 'null'] },
    ended: { type: ['string', 'null'] },
    rounds: int,
  },
  additionalProperties: true,
} as const;

function statusOf(run: RunAll): JsonObject {
  return { status: run.status, token: run.token, additional_info: run.additionalInfo, started: run.startedAt, ended: run.endedAt, rounds: run.rounds };
}

export async function runAllRoutes(app: FastifyInstance, { hub }: RouteContext): Promise<void> {
  const tags = ['pipes'];

  app.post<{ Querystring: RunAllQuery }>('/pipes/run-all-pipes', {
    schema: {
      tags,
      summary: 'Run every pipe until nothing changes (the internal scheduler of the service\'s command-line client)',
      description:
        'Resets every pump and deletes the sink datasets first (unless reset_pipes_and_delete_sink_datasets=false; input pipes\' datasets stay with delete_input_datasets=false), then runs the pipes in dependency order until extra_zero_runs rounds in a row change nothing, within max_runs rounds and max_run_time seconds. request_mode=sync answers at the end with {status, additional_info}; async answers {token} at once. One run at a time: a second one is refused with 409. scheduler_mode (active or poll) is accepted; both run the same way here.',
      querystring: {
        type: 'object',
        properties: {
          extra_zero_runs: { type: 'integer', minimum: 0, maximum: 1000 },
          max_run_time: { type: 'number', exclusiveMinimum: 0 },
          max_runs: { type: 'integer', minimum: 1, maximum: 100000 },
          request_mode: { type: 'string', enum: ['sync', 'async'] },
          scheduler_mode: { type: 'string', enum: ['active', 'poll'] },
          delete_input_datasets: pyBool,
          check_input_pipes: pyBool,
          reset_pipes_and_delete_sink_datasets: pyBool,
          output_run_statistics: pyBool,
          disable_pipes: { ...pyBool, description: 'sent by older clients; ignored' },
        },
        additionalProperties: false,
      },
      response: replies({ 200: statusReply, 409: { $ref: 'Error#' } }),
    },
    handler: async (req) => {
      const q = req.query;
      const options: RunAllOptions = {
        extraZeroRuns: q.extra_zero_runs ?? RUN_ALL_DEFAULTS.extraZeroRuns,
        maxRuns: q.max_runs ?? RUN_ALL_DEFAULTS.maxRuns,
        maxRunTime: q.max_run_time ?? RUN_ALL_DEFAULTS.maxRunTime,
        deleteInputDatasets: isTrue(q.delete_input_datasets, RUN_ALL_DEFAULTS.deleteInputDatasets),
        resetPipesAndDeleteSinkDatasets: isTrue(q.reset_pipes_and_delete_sink_datasets, RUN_ALL_DEFAULTS.resetPipesAndDeleteSinkDatasets),
        checkInputPipes: isTrue(q.check_input_pipes, RUN_ALL_DEFAULTS.checkInputPipes),
        outputRunStatistics: isTrue(q.output_run_statistics, RUN_ALL_DEFAULTS.outputRunStatistics),
      };
      const run = hub.runAll.start(options);
      if (q.request_mode === 'async') return statusOf(run);
      await run.done;
      return statusOf(run);
    },
  });

  app.get<{ Querystring: { token?: string } }>('/pipes/get-pipe-runner-status', {
    schema: {
      tags,
      summary: 'Status of a run of all pipes: running, success, failed, or not-running for a token this hub does not know',
      querystring: { type: 'object', properties: { token: str } },
      response: replies({ 200: statusReply }),
    },
    handler: async (req) => {
      const run = hub.runAll.get(req.query.token);
      if (!run) {
        return {
          status: 'not-running',
          token: req.query.token ?? null,
          additional_info: req.query.token === undefined ? 'no run of all pipes since the hub started' : 'this hub knows no run of all pipes with this token (runs are kept until the hub stops)',
        };
      }
      return statusOf(run);
    },
  });

  app.get<{ Querystring: { token?: string; since?: string } }>('/pipes/get-run-all-pipes-log', {
    schema: {
      tags,
      summary: 'Log lines of a run of all pipes ({timestamp, loglevel, logdata}), those after `since` (a timestamp of an earlier line) only',
      querystring: { type: 'object', properties: { token: str, since: str } },
      response: replies({
        200: { type: 'array', items: { type: 'object', properties: { timestamp: str, loglevel: str, logdata: str }, required: ['timestamp', 'loglevel', 'logdata'] } },
      }),
    },
    handler: async (req) => {
      const { token, since } = req.query;
      if (since !== undefined && Number.isNaN(Date.parse(since))) throw badRequest(`invalid since value ${JSON.stringify(since)}`, 'since is the timestamp of a log line already read');
      const run = hub.runAll.get(token);
      if (!run) {
        if (token === undefined) return [];
        throw notFound('run of all pipes with this token', 'runs are kept until the hub stops');
      }
      return run.linesSince(since === undefined ? undefined : new Date(since).toISOString());
    },
  });

  app.post<{ Querystring: { terminate_timeout?: number } }>('/pipes/stop-run-all-pipes', {
    schema: {
      tags,
      summary: 'Stop the running run of all pipes, waiting up to terminate_timeout seconds (default 30) for it to end',
      querystring: { type: 'object', properties: { terminate_timeout: { type: 'number', minimum: 0, maximum: 3600 } } },
      response: replies({ 200: anyObject }),
    },
    handler: async (req) => {
      const result = await hub.runAll.stop((req.query.terminate_timeout ?? 30) * 1000);
      if (!result) return { status: 'not-running', message: 'no run of all pipes is running' };
      return {
        ...statusOf(result.run),
        message: result.ended ? 'the run of all pipes was stopped' : 'the run of all pipes is stopping: its current pipe ends after its current batch',
      };
    },
  });
}
