import type { FastifyRequest } from 'fastify';
import type { Hub } from '../../hub-core/hub.js';
import { HubError } from '../../hub-core/base/index.js';
import { ADMIN } from './auth.js';
import type { TokenService } from './auth.js';
import type { EntityParserPool } from './entity-parser-pool.js';

/** What every group of API routes is given: the hub, the token service and the entity parser pool. */
export interface RouteContext {
  hub: Hub;
  tokens: TokenService;
  entityParser: EntityParserPool;
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
