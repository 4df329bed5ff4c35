// The portal as the UI sees it: calls to the desktop host's /desktop/portal/<conn>/... routes (the host
// holds the portal token) and the record shapes it answers with.
import { hostApi, json } from '../../lib/api';

import type { Connection } from '../../../../hub-core/desktop-types';
import type {
  ApiToken,
  AuthenticationProvider,
  License,
  Member,
  NewApiToken,
  NewApiTokenRequest,
  Notification,
  NotificationRule,
  PortalAlerts,
  PortalInfo,
  PortalRecord,
  Profile,
  Role,
  RuleType,
  Subscription,
  VpnConnection,
} from '../../../../hub-core/base/index';

// The record shapes are the host's own (hub-core/base/portal-types.ts); a few go by shorter names here.
export type { ApiToken, Connection, License, Member, NewApiToken, NewApiTokenRequest, Notification, PortalInfo, Profile, Role, RuleType, Subscription, VpnConnection };
export type Rec = PortalRecord;
export type Provider = AuthenticationProvider;
export type Rule = NotificationRule;
export type Alerts = PortalAlerts;

/**
 * Whether a role is one of the portal's built-in roles, which cannot be changed or deleted. The portal marks no
 * role as built-in and does not name them; built-in roles are the `group:` principals (as `group:Everyone` on API
 * tokens), while custom roles get other ids.
 */
export function isBuiltInRole(r: Role): boolean {
  return r.id.startsWith('group:');
}

const e = encodeURIComponent;

/** Calls for one saved portal connection. */
export function portal(conn: string) {
  const base = `/portal/${e(conn)}`;
  const sub = (id: string): string => `${base}/subscriptions/${e(id)}`;
  return {
    info: () => hostApi<PortalInfo>(`${base}/info`),
    profile: () => hostApi<Profile>(`${base}/profile`),
    updateProfile: (p: { name?: string; nickname?: string; approvedTos?: number }) => hostApi<Profile>(`${base}/profile`, json('PUT', p)),
    subscriptions: () => hostApi<Subscription[]>(`${base}/subscriptions`),
    subscription: (id: string) => hostApi<Subscription>(sub(id)),
    updateSubscription: (id: string, body: Rec) => hostApi<Subscription>(sub(id), json('PUT', body)),
    renewLicense: (id: string) => hostApi<Subscription>(`${sub(id)}/licenses`, { method: 'POST' }),
    roles: (id: string) => hostApi<Role[]>(`${sub(id)}/roles`),
    createRole: (id: string, role: Omit<Role, 'id'>) => hostApi<Role>(`${sub(id)}/roles`, json('POST', role)),
    updateRole: (id: string, role: string, body: Omit<Role, 'id'>) => hostApi<Role>(`${sub(id)}/roles/${e(role)}`, json('PUT', body)),
    deleteRole: (id: string, role: string) => hostApi<void>(`${sub(id)}/roles/${e(role)}`, { method: 'DELETE' }),
    members: (id: string, start: number, limit: number) => hostApi<Member[]>(`${sub(id)}/members?start=${start}&limit=${limit}`),
    invite: (id: string, email: string, roles: string[]) => hostApi<Member>(`${sub(id)}/members`, json('POST', { email, roles })),
    setRoles: (id: string, m: Member, roles: string[]) => hostApi<Member>(`${sub(id)}/members/${e(m.user.user_id)}`, json('PUT', { _updated: m._updated ?? null, roles })),
    apiTokens: (id: string) => hostApi<ApiToken[]>(`${sub(id)}/api-tokens`),
    createApiToken: (id: string, body: NewApiTokenRequest) => hostApi<NewApiToken>(`${sub(id)}/api-tokens`, json('POST', body)),
    deleteApiToken: (id: string, token: string) => hostApi<void>(`${sub(id)}/api-tokens/${e(token)}`, { method: 'DELETE' }),
    storeApiToken: (id: string, token: string, label: string, allowInsecure?: boolean) =>
      hostApi<Connection>(`${sub(id)}/api-tokens/${e(token)}/store`, json('POST', { label, ...(allowInsecure ? { allowInsecure } : {}) })),
    /** Creates an API token and keeps it in the keychain as an instance connection; the token never comes here. */
    connectInstance: (id: string, body: { principals: string[]; days: number; label: string; allowInsecure?: boolean }) =>
      hostApi<Connection>(`${sub(id)}/instance-connection`, json('POST', body)),
    ruleTypes: (id: string, pipe: string) => hostApi<RuleType[]>(`${sub(id)}/pipes/${e(pipe)}/rule-types`),
    allRules: (id: string) => hostApi<Rule[]>(`${sub(id)}/notification-rules`),
    rules: (id: string, pipe: string) => hostApi<Rule[]>(`${sub(id)}/pipes/${e(pipe)}/notification-rules`),
    createRule: (id: string, pipe: string, rule: Rule) => hostApi<Rule>(`${sub(id)}/pipes/${e(pipe)}/notification-rules`, json('POST', rule)),
    updateRule: (id: string, pipe: string, rule: string, body: Omit<Rule, 'type' | 'id' | 'pipe_id'>) =>
      hostApi<Rule>(`${sub(id)}/pipes/${e(pipe)}/notification-rules/${e(rule)}`, json('PUT', body)),
    deleteRule: (id: string, pipe: string, rule: string) => hostApi<void>(`${sub(id)}/pipes/${e(pipe)}/notification-rules/${e(rule)}`, { method: 'DELETE' }),
    ruleNotifications: (id: string, pipe: string, rule: string) =>
      hostApi<Notification[]>(`${sub(id)}/pipes/${e(pipe)}/notification-rules/${e(rule)}/notifications?limit=20`),
    notifications: (limit: number, includeDismissed: boolean) => hostApi<Notification[]>(`${base}/notifications?limit=${limit}&include_dismissed=${includeDismissed}`),
    summary: (id: string) => hostApi<Alerts>(`${base}/notification-summary?subscription=${e(id)}`),
    monitoring: (id: string, pipe?: string) => hostApi<Rec>(`/portal/${e(conn)}/monitoring/${e(id)}${pipe ? `?pipe=${e(pipe)}` : ''}`),
    invoicing: (id: string) => hostApi<Rec>(`/portal/${e(conn)}/monitoring/${e(id)}/invoicing`),
  };
}

export type PortalCalls = ReturnType<typeof portal>;

export const connections = {
  list: () => hostApi<Connection[]>('/connections'),
  add: (body: { kind: 'portal' | 'instance'; label: string; url: string; token: string; allowInsecure?: boolean }) => hostApi<Connection>('/connections', json('POST', body)),
  remove: (id: string) => hostApi<void>(`/connections/${e(id)}`, { method: 'DELETE' }),
  /** Links an instance to a portal subscription (alert badges), or unlinks it with null. */
  link: (id: string, to: { portal: string; subscription: string } | null) =>
    hostApi<Connection>(`/connections/${e(id)}`, json('PATCH', to ?? { portal: null, subscription: null })),
};

/**
 * True for a plain http:// address off this computer: a token sent there travels unencrypted. The host refuses
 * such an address unless the user confirms (allowInsecure); the UI warns before that.
 */
export function insecureAddress(text: string): boolean {
  let u: URL;
  try {
    u = new URL(text.trim());
  } catch {
    return false;
  }
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const loopback = host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
  return u.protocol === 'http:' && !loopback;
}

/** A date as the user's locale shows it; the raw text when it does not parse. */
export function when(iso: string | number | undefined): string {
  if (iso === undefined) return '';
  const d = typeof iso === 'number' ? new Date(iso * 1000) : new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString();
}

/** Fired on window whenever a connection is added or removed here, so other lists can refresh. */
export const CONNECTIONS_CHANGED = 'datahub:connections-changed';
export function announceConnectionsChanged(): void {
  window.dispatchEvent(new CustomEvent(CONNECTIONS_CHANGED));
}
