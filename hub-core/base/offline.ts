// A pipe that needs something no offline hub can have (an outside system it cannot reach, a microservice, a system
// the project does not hold, a transform that calls an outside service) is offline, not failed: its run reads or
// sends nothing more, says why, and ends without an error (sinks record what they would have sent in the outbox).
import { HubError } from './errors.js';

export class OfflineError extends HubError {
  constructor(message: string, detail?: string) {
    super(503, message, detail);
    this.name = 'OfflineError';
  }
}

/** An OfflineError, also one that crossed from a pipe worker (only its name and status survive the crossing). */
export function isOfflineError(e: unknown): e is HubError {
  return e instanceof HubError && e.name === 'OfflineError';
}

/** Codes of a connection that could not be made at all (no such host, nothing listening, no route). */
const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN']);

/** Did a request fail because its host could not be reached (rather than answering badly)? */
export function isUnreachable(e: unknown): boolean {
  for (let x: unknown = e; x instanceof Error; x = (x as { cause?: unknown }).cause) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE.has(code)) return true;
    if (x instanceof AggregateError && x.errors.some((inner) => isUnreachable(inner))) return true;
  }
  return false;
}
