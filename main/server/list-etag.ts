import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

// Each row's `cached_response_info` says when the answer was made, a different time at every call: not a change.
const ANSWERED_AT = /"cached_response_info":\{"age":\d+,"timestamp":"[^"]*"\}/g;

/**
 * An `onSend` hook for a list the workbench polls every few seconds (GET /pipes, GET /datasets): the answer tagged
 * with its digest, and 304 with no body when the caller already has it (If-None-Match), so that a poll that changed
 * nothing costs the page nothing to read or draw.
 */
export async function tagListAnswer(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
  const etag = `"${createHash('sha1').update(payload.replace(ANSWERED_AT, '')).digest('base64url')}"`;
  void reply.header('etag', etag);
  if (req.headers['if-none-match'] !== etag) return payload;
  void reply.code(304);
  return '';
}
