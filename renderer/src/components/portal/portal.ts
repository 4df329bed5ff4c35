// The portal as the UI sees it: calls to the desktop host's /desktop/portal/<conn>/... routes (the host
// holds the portal token) and the record shapes it answers with.
import { hostApi, json } from '../../lib/api';

export type Rec = Record<string, unknown>;

import type { Connection } from '../../../../hub-core/desktop-types';

export type { Connection };

export interface Provider {
  id: string;
  login_url: string;
  login_button_text?: string;
  login_button_tooltip?: string;
}

export interface PortalInfo {
  authentication_providers: Provider[];
  tos_version?: number;
  status: Rec & { 'feature-level': number; health_status: { status: string; message?: string }; version?: string };
}

export interface Profile {
  'supported-operations': Rec;
  userInfo: { user_id?: string; profile?: { email?: string; name?: string; nickname?: string; email_is_verified?: boolean } };
}

export interface License {
  'is-active-license'?: boolean;
  original: { _id: string; created: string; email: string; expires: string };
}

export interface VpnConnection {
  _id?: number;
  gateway_address?: string;
  address_spaces?: string[];
  shared_key?: string;
}

export interface Subscription extends Rec {
  _updated: unknown;
  id: string;
  name: string;
  created: string;
  type: string;
  description?: string;
  url?: string;
  service?: string;
  provisioning_status?: string;
  connections?: { id: string; name: string; type: string; url: string }[];
  licenses?: License[];
  products?: Rec & { datahub?: Rec & { size?: string; version?: string; developer_mode?: boolean }; vpn?: Rec & { connections?: VpnConnection[] } };
  'supported-operations'?: Rec;
}

export interface Role {
  id: string;
  name?: string;
  description?: string;
  'child-roles'?: string[];
}

/**
 * Whether a role is one of the portal's built-in roles, which cannot be changed or deleted. The portal marks no
 * role as built-in and does not name them; built-in roles are the `group:` principals (as `group:Everyone` on API
 * tokens), while custom roles get other ids.
 */
export function isBuiltInRole(r: Role): boolean {
  return r.id.startsWith('group:');
}

export interface Member {
  _updated?: unknown;
  user: { email?: string; name?: string; user_id: string };
  roles: string[];
  audit?: { invited_ts?: string };
}

export interface ApiToken {
  id: string;
  name?: string;
  description: string;
  refresh_interval?: number;
  client_id?: string;
  payload: { exp: number; iat: number; user_id: string; principals?: Record<string, string[]> };
  /** Only in the answer to a create, shown once. */
  jwt_string?: string;
  /** Only in the answer to a create with a refresh interval, shown once. */
  client_secret?: string;
}

export interface NewApiToken {
  name: string;
  description: string;
  exp: number;
  principals: string[];
  refresh_interval?: number;
}

export interface RuleType {
  type: string;
  name: string;
  description: string;
  schema: Rec;
}

export interface Rule {
  id?: string;
  type: string;
  name?: string;
  description?: string;
  extra_rule_info?: Rec;
  pipe_id?: string;
  recipients?: { id: unknown; type?: string; methods?: string[] }[];
}

export interface Notification {
  notification_id: number;
  notification_rule_id: string;
  notification_rule_name: string;
  notification_rule_type?: string;
  msg: string;
  event_timestamp: string;
  last_event_timestamp: string;
  event_count: number;
  is_ongoing: boolean;
  pipe_id?: string;
  subscription_id?: string;
}

export interface Alerts {
  entries: { _id: string; subscription_id: string; pipe_id?: string; status?: string; notifications?: Notification[] }[];
  pipes: Record<string, number>;
  /** Open alerts of each subscription's own built-in rules (disk usage, license expiry). */
  subscriptions: Record<string, number>;
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
    createApiToken: (id: string, body: NewApiToken) => hostApi<ApiToken>(`${sub(id)}/api-tokens`, json('POST', body)),
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
