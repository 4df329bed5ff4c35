// Subscriptions: list, read, create, delete, `_updated` optimistic locking, the write-only VPN shared key, licenses.
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { MASK, PortalError, type P, type PortalContext } from './context.js';
import type { Json } from './types.js';

export function subscriptionRoutes(app: FastifyInstance, ctx: PortalContext): void {
  const { subs, staleStatus, now, provision, checkLicense, who, memberOf, subFor, userOnly, touch, view, body } = ctx;
  app.get('/api/subscriptions', async (req) => {
    const p = who(req);
    return [...subs.values()]
      .filter((s) => memberOf(s, p.user.user_id) && (p.onlySubscription === undefined || p.onlySubscription === s.data['id']))
      .map(view);
  });
  app.get<P>('/api/subscriptions/:sub', async (req) => view(subFor(req, req.params['sub']!)));
  app.put<P>('/api/subscriptions/:sub', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const u = userOnly(req);
    const b = body(req);
    if (!('_updated' in b)) throw new PortalError(400, 'invalid request', '_updated is required');
    if (JSON.stringify(b['_updated']) !== JSON.stringify(sub.data['_updated'])) {
      throw new PortalError(staleStatus, 'conflict', 'the subscription was modified by someone else since it was read; _updated does not match');
    }
    for (const key of ['connections', 'description', 'name', 'network', 'paymentmethod_id', 'url']) if (key in b) sub.data[key] = b[key];
    if (typeof sub.data['name'] !== 'string' || sub.data['name'] === '') throw new PortalError(400, 'invalid request', 'name must be a non-empty string');
    if ('products' in b) {
      const products = structuredClone(b['products']) as Json;
      const conns = ((products['vpn'] as Json | undefined)?.['connections'] ?? []) as Json[];
      const keep = new Map<number, string>();
      let nextId = Math.max(0, ...sub.vpnKeys.keys()) + 1;
      for (const c of conns) {
        if (typeof c['_id'] !== 'number') c['_id'] = nextId++;
        const id = c['_id'] as number;
        const key = c['shared_key'];
        if (key === MASK || key === undefined) {
          const old = sub.vpnKeys.get(id);
          if (old !== undefined) keep.set(id, old);
        } else if (typeof key === 'string') keep.set(id, key);
        if ('shared_key' in c || keep.has(id)) c['shared_key'] = MASK;
      }
      sub.vpnKeys = keep;
      sub.data['products'] = products;
    }
    touch(sub, u);
    return view(sub);
  });
  app.post('/api/subscriptions', async (req) => {
    const u = userOnly(req);
    const b = body(req);
    if (typeof b['name'] !== 'string' || b['name'] === '') throw new PortalError(400, 'invalid request', 'name is required');
    const id = typeof b['id'] === 'string' && b['id'] !== '' ? b['id'] : `sub-${randomUUID().slice(0, 8)}`;
    if (subs.has(id)) throw new PortalError(409, 'conflict', `subscription ${id} exists`);
    let expires: string | undefined;
    if (b['license-expiration-date'] !== undefined) {
      const t = Date.parse(String(b['license-expiration-date']));
      // The spec leaves the furthest allowed date open; five years stands in for it here.
      if (Number.isNaN(t) || t <= Date.now() || t > Date.now() + 5 * 365 * 86_400_000) {
        throw new PortalError(400, 'invalid license-expiration-date', 'it must be a date in the future, at most five years ahead');
      }
      expires = new Date(t).toISOString();
    }
    const conns = b['connections'] as { url?: unknown }[] | undefined;
    const instanceUrl = typeof conns?.[0]?.url === 'string' ? conns[0].url : 'https://pending.invalid/api';
    const sub = provision({ id, name: b['name'], instanceUrl, members: [{ user_id: u.user_id, roles: ['group:Admin'] }] }, expires);
    checkLicense(sub);
    for (const key of ['description', 'url', 'type', 'service', 'provisioner_version', 'network', 'paymentmethod_id']) if (key in b) sub.data[key] = b[key];
    if (b['products'] && typeof b['products'] === 'object') sub.data['products'] = b['products'];
    return view(sub);
  });
  app.delete<P>('/api/subscriptions/:sub', async (req, reply) => {
    subFor(req, req.params['sub']!);
    subs.delete(req.params['sub']!);
    return reply.code(200).send();
  });
  app.post<P>('/api/subscriptions/:sub/licenses', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const licenses = sub.data['licenses'] as Json[];
    const current = licenses.find((l) => l['is-active-license'] === true) ?? licenses[licenses.length - 1]!;
    const original = current['original'] as Json;
    const expires = new Date(Math.max(Date.parse(String(original['expires'])), Date.now()) + 365 * 86_400_000).toISOString();
    for (const l of licenses) l['is-active-license'] = false;
    licenses.push({ 'is-active-license': true, original: { ...original, _id: randomUUID(), created: now(), expires } });
    touch(sub, userOnly(req));
    checkLicense(sub);
    return view(sub);
  });
}
