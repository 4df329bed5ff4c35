// Roles (built in and custom) and the paginated members of a subscription.
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { newVersion, PortalError, type P, type PortalContext, type SubState } from './context.js';
import type { Json } from './types.js';

export const BUILTIN_ROLES: Json[] = [
  { id: 'group:Admin', name: 'Administrator', description: 'Full control of the subscription', 'child-roles': ['group:Developer'] },
  { id: 'group:Developer', name: 'Developer', description: 'Edits configuration and runs pipes', 'child-roles': ['group:Viewer'] },
  { id: 'group:Viewer', name: 'Viewer', description: 'Read-only access', 'child-roles': [] },
];

/** The role ids a subscription knows; a 400 naming the unknown ones. */
export function knownRoles(sub: SubState, roles: unknown): string[] {
  if (!Array.isArray(roles) || roles.some((r) => typeof r !== 'string')) throw new PortalError(400, 'invalid request', 'roles must be a list of role ids');
  const ids = new Set([...BUILTIN_ROLES, ...sub.customRoles].map((r) => r['id']));
  const unknown = (roles as string[]).filter((r) => !ids.has(r));
  if (unknown.length > 0) throw new PortalError(400, 'invalid request', `unknown roles: ${unknown.join(', ')}`);
  return roles as string[];
}

export function memberRoutes(app: FastifyInstance, ctx: PortalContext): void {
  const { staleStatus, person, now, subFor, userOnly, body, intQuery } = ctx;
  // Roles
  const roleBody = (b: Json, id: string): Json => {
    if (typeof b['name'] !== 'string' || b['name'] === '') throw new PortalError(400, 'invalid request', 'a role needs a name');
    const children = b['child-roles'] ?? [];
    if (!Array.isArray(children) || children.some((c) => typeof c !== 'string')) throw new PortalError(400, 'invalid request', 'child-roles must be a list of role ids');
    return { id, name: b['name'], description: typeof b['description'] === 'string' ? b['description'] : '', 'child-roles': children };
  };
  app.get<P>('/api/subscriptions/:sub/available-roles', async (req) => [...BUILTIN_ROLES, ...subFor(req, req.params['sub']!).customRoles]);
  app.post<P>('/api/subscriptions/:sub/available-roles', async (req, reply) => {
    const sub = subFor(req, req.params['sub']!);
    const b = body(req);
    const id = typeof b['id'] === 'string' && b['id'] !== '' ? b['id'] : `custom:${randomUUID().slice(0, 8)}`;
    if ([...BUILTIN_ROLES, ...sub.customRoles].some((r) => r['id'] === id)) throw new PortalError(409, 'conflict', `role ${id} exists`);
    const role = roleBody(b, id);
    sub.customRoles.push(role);
    return reply.code(200).send(role);
  });
  const customRole = (sub: SubState, id: string): Json => {
    if (BUILTIN_ROLES.some((r) => r['id'] === id)) throw new PortalError(403, 'forbidden', 'built-in roles cannot be changed');
    const role = sub.customRoles.find((r) => r['id'] === id);
    if (!role) throw new PortalError(404, 'role not found', `no role ${JSON.stringify(id)}`);
    return role;
  };
  app.get<P>('/api/subscriptions/:sub/available-roles/:role', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const role = [...BUILTIN_ROLES, ...sub.customRoles].find((r) => r['id'] === req.params['role']);
    if (!role) throw new PortalError(404, 'role not found', `no role ${JSON.stringify(req.params['role'])}`);
    return role;
  });
  app.put<P>('/api/subscriptions/:sub/available-roles/:role', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const role = customRole(sub, req.params['role']!);
    Object.assign(role, roleBody(body(req), String(role['id'])));
    return role;
  });
  app.delete<P>('/api/subscriptions/:sub/available-roles/:role', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const role = customRole(sub, req.params['role']!);
    sub.customRoles = sub.customRoles.filter((r) => r !== role);
    return role;
  });

  // Members
  app.get<P>('/api/subscriptions/:sub/members', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const start = intQuery(req.query['start'], 'start') ?? 0;
    const limit = intQuery(req.query['limit'], 'limit');
    return sub.members.slice(start, limit === undefined ? undefined : start + limit);
  });
  app.post<P>('/api/subscriptions/:sub/members', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const inviter = userOnly(req);
    const b = body(req);
    const email = b['email'];
    if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new PortalError(400, 'invalid request', 'email must be an e-mail address');
    if (sub.members.some((m) => (m['user'] as Json)['email'] === email)) throw new PortalError(409, 'conflict', `${email} is already a member`);
    const roles = knownRoles(sub, b['roles'] ?? []);
    const member: Json = {
      _updated: newVersion(),
      user: { email, name: '', picture: '', user_id: email },
      roles,
      audit: { invited_by: person(inviter), invited_ts: now() },
      svc_support_info: { exp: new Date(Date.now() + 365 * 86_400_000).toISOString() },
    };
    sub.members.push(member);
    return member;
  });
  const findMember = (sub: SubState, id: string): Json => {
    const m = sub.members.find((x) => (x['user'] as Json)['user_id'] === id);
    if (!m) throw new PortalError(404, 'member not found', `no member ${JSON.stringify(id)}`);
    return m;
  };
  app.get<P>('/api/subscriptions/:sub/members/:user', async (req) => findMember(subFor(req, req.params['sub']!), req.params['user']!));
  app.put<P>('/api/subscriptions/:sub/members/:user', async (req) => {
    const sub = subFor(req, req.params['sub']!);
    const m = findMember(sub, req.params['user']!);
    const b = body(req);
    if (JSON.stringify(b['_updated']) !== JSON.stringify(m['_updated'])) throw new PortalError(staleStatus, 'conflict', 'the member was modified since it was read; _updated does not match');
    m['roles'] = knownRoles(sub, b['roles']);
    m['_updated'] = newVersion();
    return m;
  });
}
