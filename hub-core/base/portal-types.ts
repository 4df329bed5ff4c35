// Shapes of the account portal API (../shared/spec/portal-api.md), in one place for the desktop host (main/remote,
// main/server/desktop/desktop-portal.ts) and the workbench (renderer/src/components/portal/portal.ts, which may
// import types from hub-core only); test/architecture/portal-types.ts fails the build when either side declares its own. Only the
// fields the desktop reads are typed; every record keeps the rest as it came, so nothing is lost when a record is
// sent back in a PUT.
export type PortalRecord = Record<string, unknown>;

export interface AuthenticationProvider {
  id: string;
  login_url: string;
  login_button_icon?: string;
  login_button_text?: string;
  login_button_tooltip?: string;
}

export interface PortalInfo extends PortalRecord {
  authentication_providers: AuthenticationProvider[];
  status: PortalRecord & { 'feature-level': number; health_status: { status: string; message?: string }; version?: string };
  tos_version?: number;
}

export interface Profile extends PortalRecord {
  'supported-operations': PortalRecord;
  userInfo: PortalRecord & {
    user_id?: string;
    isLoggedIn?: boolean;
    profile?: PortalRecord & { email?: string; email_is_verified?: boolean; name?: string; nickname?: string; picture?: string };
  };
}

export interface SubscriptionConnection {
  id: string;
  name: string;
  type: string;
  url: string;
}

export interface License {
  'is-active-license'?: boolean;
  original: { _id: string; created: string; email: string; expires: string };
  signed?: string;
}

export interface VpnConnection {
  _id?: number;
  gateway_address?: string;
  address_spaces?: string[];
  shared_key?: string;
}

export interface Subscription extends PortalRecord {
  _updated: unknown;
  id: string;
  name: string;
  created: string;
  type: string;
  description?: string;
  url?: string;
  service?: string;
  provisioning_status?: string;
  connections?: SubscriptionConnection[];
  licenses?: License[];
  products?: PortalRecord & {
    datahub?: PortalRecord & { size?: string; version?: string; developer_mode?: boolean };
    vpn?: PortalRecord & { connections?: VpnConnection[] };
  };
  'supported-operations'?: PortalRecord;
}

/** What PUT /api/subscriptions/<id> accepts. */
export interface SubscriptionUpdate {
  _updated: unknown;
  connections?: SubscriptionConnection[];
  description?: string;
  name?: string;
  network?: PortalRecord;
  paymentmethod_id?: string;
  products?: PortalRecord;
  url?: string;
}

export interface Role {
  id: string;
  name?: string;
  description?: string;
  'child-roles'?: string[];
}

export interface Member extends PortalRecord {
  _updated?: unknown;
  user: { email?: string; name?: string; picture?: string; user_id: string };
  roles: string[];
  audit?: PortalRecord & { invited_ts?: string };
}

export interface ApiToken extends PortalRecord {
  id: string;
  name?: string;
  description: string;
  /** Only when refresh_interval is set. */
  client_id?: string;
  refresh_interval?: number;
  payload: PortalRecord & { api_token_id: string; exp: number; iat: number; user_id: string; principals?: Record<string, string[]> };
}

/** Only the answer to a create carries the signed token (and, with a refresh interval, the client secret). */
export interface NewApiToken extends ApiToken {
  jwt_string: string;
  client_secret?: string;
}

export interface NewApiTokenRequest {
  exp: number;
  name?: string;
  description?: string;
  principals?: string[];
  refresh_interval?: number;
}

export interface RuleType {
  type: string;
  name: string;
  description: string;
  schema: PortalRecord;
}

export interface Recipient {
  id: unknown;
  type?: string;
  methods?: string[];
}

export interface NotificationRule extends PortalRecord {
  id?: string;
  type: string;
  name?: string;
  description?: string;
  extra_rule_info?: PortalRecord;
  pipe_id?: string;
  recipients?: Recipient[];
}

export interface Notification extends PortalRecord {
  notification_id: number;
  notification_rule_id: string;
  notification_rule_name: string;
  notification_rule_type: string;
  msg: string;
  event_timestamp: string;
  last_event_timestamp: string;
  event_count: number;
  is_ongoing: boolean;
  pipe_id?: string;
  subscription_id?: string;
}

export interface SummaryEntry extends PortalRecord {
  _id: string;
  _updated: number;
  _deleted: boolean;
  subscription_id: string;
  pipe_id?: string;
  status?: 'ok' | 'failed' | string;
  notifications?: Notification[];
  confidence?: number;
}

export interface NotificationQuery {
  limit?: number;
  since?: string;
  include_dismissed?: boolean;
}

/** The host's notification summary for a connection (GET /desktop/portal/<conn>/notification-summary, /portal-alerts). */
export interface PortalAlerts {
  entries: SummaryEntry[];
  /** Pipe id → open alerts, for the subscription asked about. */
  pipes: Record<string, number>;
  /** Open alerts of each subscription's own built-in rules (disk usage, license expiry). */
  subscriptions: Record<string, number>;
}
