import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance } from 'fastify';
import { HubError } from '../../hub-core/base/index.js';
import { EntityError } from '../../hub-core/base/index.js';
import { ConfigRejected } from '../../hub-core/pipes/index.js';

export interface ErrorBody {
  error: string;
  detail: string | null;
}

export const errorSchema = {
  $id: 'Error',
  type: 'object',
  description: 'Every failed request answers with this body',
  properties: {
    error: { type: 'string' },
    detail: { type: ['string', 'null'] },
    validation_errors: {
      type: 'array',
      description: 'a rejected configuration: per entity with errors, {"posted-config", "config-errors": [{level, msg, elements}]}',
      items: { type: 'object', additionalProperties: true },
    },
  },
  required: ['error', 'detail'],
} as const;

/**
 * Every failure becomes `{"error", "detail"}` with a 4xx status; only real bugs answer 500. `mask` hides secret
 * values (an error may quote a URL or a remote's answer built from them) in the answer and the log line.
 */
export function installErrorHandling(app: FastifyInstance, mask: (text: string) => string = (text) => text): void {
  app.setErrorHandler((err: FastifyError | HubError | EntityError | Error, request, reply) => {
    const send = (status: number, error: string, detail: string | null): Promise<void> | undefined => {
      const body = { error: mask(error), detail: detail === null ? null : mask(detail) } satisfies ErrorBody;
      const answer = (): void => {
        if (!reply.sent) void reply.code(status).type('application/json; charset=utf-8').send(body);
      };
      if (status !== 413) {
        answer();
        return undefined;
      }
      // The client is still sending the body it declared: answering at once and closing would break its write
      // (EPIPE) before it reads the answer. Read the rest and throw it away (bounded), then answer.
      return drainRequest(request.raw).then(answer);
    };
    if (err instanceof ConfigRejected) {
      if (!reply.sent) void reply.code(400).type('application/json; charset=utf-8').send({ error: err.message, detail: err.detail ?? null, validation_errors: err.validationErrors });
      return;
    }
    if (err instanceof HubError) return send(err.status, err.message, err.detail ?? null);
    if (err instanceof EntityError) return send(400, 'invalid entity', err.message);
    const fe = err as FastifyError;
    if (fe.validation) {
      // Name the field Ajv leaves out of its words: an unknown one, or a missing one.
      const first = fe.validation[0];
      const params = (first?.params ?? {}) as { additionalProperty?: string };
      const bounds = (first as { parentSchema?: { minimum?: number; maximum?: number } } | undefined)?.parentSchema;
      const extra =
        first?.keyword === 'additionalProperties' && params.additionalProperty !== undefined
          ? `: ${JSON.stringify(params.additionalProperty)} is not a known field`
          : bounds && (bounds.minimum !== undefined || bounds.maximum !== undefined)
            ? ` (allowed: ${rangeWords(bounds.minimum, bounds.maximum)})`
            : '';
      return send(400, 'invalid request', `${fe.validationContext ?? 'request'}${fe.message.replace(/^(querystring|body|params|headers)/, '')}${extra}`);
    }
    switch (fe.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(413, 'request body too large', `the limit is ${app.initialConfig.bodyLimit ?? 0} bytes; send smaller batches`);
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(415, 'unsupported content type', fe.message);
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(400, 'empty JSON body', fe.message);
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return send(400, 'malformed JSON', fe.message);
    }
    if (err instanceof SyntaxError || fe.statusCode === 400) return send(400, 'malformed request', err.message);
    if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) return send(fe.statusCode, err.message, null);
    // Not the error object itself: its own fields (a TypeError's `input`, say) could hold a secret unmasked.
    request.log.error({ err: { type: err.name, message: mask(err.message), stack: mask(err.stack ?? '') } }, 'unexpected error');
    return send(500, 'internal error', 'the hub failed unexpectedly; the log has the details');
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: 'not found', detail: `no route ${request.method} ${request.url.split('?')[0]}` } satisfies ErrorBody);
  });
}

/** Bytes of a refused body read and thrown away at most, and for how long, before a 413 is answered anyway. */
const DRAIN_BYTES = 256 * 1024 * 1024;
const DRAIN_MS = 30_000;

/** Read what is left of a request body and throw it away: until its end, DRAIN_BYTES or DRAIN_MS, whichever first. */
function drainRequest(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let bytes = 0;
    const done = (): void => {
      clearTimeout(timer);
      raw.off('data', count);
      raw.off('end', done);
      raw.off('close', done);
      resolve();
    };
    const count = (chunk: Buffer): void => {
      bytes += chunk.length;
      if (bytes > DRAIN_BYTES) done();
    };
    const timer = setTimeout(done, DRAIN_MS);
    raw.on('data', count);
    raw.once('end', done);
    raw.once('close', done);
    raw.resume();
  });
}

/** A schema's numeric range in words: "from 0 to 100", "at least 1", "at most 9". */
function rangeWords(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  return min !== undefined ? `at least ${min}` : `at most ${max ?? ''}`;
}
