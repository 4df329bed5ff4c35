import type { FastifyInstance } from 'fastify';
import { isIP } from 'node:net';

/** The Host values a browser may legitimately send to this server (the DNS-rebinding guard). */
export function allowedHosts(host: string, port: number): Set<string> {
  const hosts = new Set<string>();
  const add = (h: string): void => {
    hosts.add(`${h}:${port}`.toLowerCase());
    if (port === 80) hosts.add(h.toLowerCase());
  };
  const bracket = (h: string): string => (isIP(h) === 6 ? `[${h}]` : h);
  if (host === '127.0.0.1' || host === 'localhost' || host === '::1') {
    ['127.0.0.1', 'localhost', '[::1]'].forEach(add);
  } else if (host === '0.0.0.0' || host === '::') {
    // Bound to every interface on purpose: the user asked for it; still refuse foreign names.
    ['127.0.0.1', 'localhost', '[::1]'].forEach(add);
  } else {
    add(bracket(host));
  }
  return hosts;
}

/** Refuse requests whose Host is not this server, and cross-origin requests from other sites. */
export function installHostGuard(app: FastifyInstance, hosts: () => Set<string>, extraHosts: string[] = []): void {
  app.addHook('onRequest', async (request, reply) => {
    const allowed = hosts();
    const host = (request.headers.host ?? '').toLowerCase();
    if (!allowed.has(host) && !extraHosts.includes(host)) {
      return reply.code(403).send({ error: 'forbidden host', detail: `this hub answers only to ${[...allowed].join(', ')}` });
    }
    const origin = request.headers.origin;
    // "null" (sandboxed frames, file: pages) is refused too: no legitimate client of this hub sends it.
    if (origin !== undefined) {
      let originHost = '';
      try {
        originHost = new URL(origin).host.toLowerCase();
      } catch {
        originHost = '';
      }
      if (!allowed.has(originHost) && !extraHosts.includes(originHost)) {
        return reply.code(403).send({ error: 'forbidden origin', detail: 'cross-origin requests are not accepted' });
      }
    }
    return undefined;
  });
}
