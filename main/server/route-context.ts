import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Hub } from '../../hub-core/hub.js';
import { HubError } from '../../hub-core/base/index.js';
import { ADMIN } from './auth.js';
import type { TokenService } from './auth.js';
import type { EntityParserPool } from './entity-parser-pool.js';
import type { PreviewEvaluator } from '../../hub-core/preview/index.js';

/** What every group of API routes is given: the hub, the token service and the entity parser pool. */
export interface RouteContext {
  hub: Hub;
  tokens: TokenService;
  entityParser: EntityParserPool;
  /** Where previews, traces, step-throughs and impacts evaluate DTL (preview workers with a deadline). */
  previews?: PreviewEvaluator;
  /** The largest streamed JSON Push body in bytes (`--push-limit`). */
  pushLimit?: number | undefined;
  /** The workspace folder the hub was opened on (`serve --workspace`), if any: its tests judge a draft's impact. */
  workspaceDir?: string | undefined;
}

/** Refuses (403) a request whose token lacks the group:Admin principal. */
export function requireAdmin(request: FastifyRequest): void {
  if (!request.claims?.principals.includes(ADMIN)) {
    throw new HubError(403, 'forbidden', 'this operation requires a token with the group:Admin principal');
  }
}

/** Aborted when the client goes away before its answer is sent (a long preview is then stopped). */
export function clientGone(reply: FastifyReply): AbortSignal {
  const ac = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ac.abort();
  });
  return ac.signal;
}
