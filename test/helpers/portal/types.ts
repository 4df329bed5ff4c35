// The portal stand-in's seed: its users and subscriptions, as tests pass them to startPortal.
export type Json = Record<string, unknown>;

export interface PortalUser {
  user_id: string;
  email: string;
  name: string;
  token: string;
  /** A portal administrator: may switch on isPortalAdmin powers. */
  portalAdmin?: boolean;
}

export interface SeedSubscription {
  id: string;
  name: string;
  /** The default node connection's URL: an instance API root (…/api), for example a second hub. */
  instanceUrl: string;
  /** user ids with their roles; the first is the creator. */
  members: { user_id: string; roles: string[] }[];
  /** Extra invited members (pagination tests). */
  extraMembers?: number;
  vpnSharedKey?: string;
  /** The license expires this many days from now (default 90); within 30 days it raises license_expiration_date. */
  licenseExpiresInDays?: number;
}

export interface PortalOptions {
  users: PortalUser[];
  subscriptions: SeedSubscription[];
  /** Makes the `jwt_string` of a new API token; defaults to an HS256 JWT signed by this portal. */
  mintJwt?: (payload: Json) => string;
  /**
   * The status of a write with a stale `_updated`. The spec does not show it; 409 by default, and 400 (naming the
   * field) stands for portals that report it as a validation error.
   */
  staleStatus?: 409 | 400;
}
