// A compile-time check, no code to run (svelte-check, part of `npm run typecheck`, fails here): the portal record
// shapes this workbench uses are the host's, from their one home hub-core/base/portal-types.ts, never copies declared here
// (test/architecture/portal-types.ts checks the host's side the same way).
import type * as Shared from '../../../../hub-core/base/index';
import type * as Renderer from './portal';

/** True only when A and B are the same type (also for readonly and optional members). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export const sameSubscription: Equal<Renderer.Subscription, Shared.Subscription> = true;
export const sameInfo: Equal<Renderer.PortalInfo, Shared.PortalInfo> = true;
export const sameProvider: Equal<Renderer.Provider, Shared.AuthenticationProvider> = true;
export const sameProfile: Equal<Renderer.Profile, Shared.Profile> = true;
export const sameLicense: Equal<Renderer.License, Shared.License> = true;
export const sameVpn: Equal<Renderer.VpnConnection, Shared.VpnConnection> = true;
export const sameRole: Equal<Renderer.Role, Shared.Role> = true;
export const sameMember: Equal<Renderer.Member, Shared.Member> = true;
export const sameApiToken: Equal<Renderer.ApiToken, Shared.ApiToken> = true;
export const sameNewApiToken: Equal<Renderer.NewApiToken, Shared.NewApiToken> = true;
export const sameTokenRequest: Equal<Renderer.NewApiTokenRequest, Shared.NewApiTokenRequest> = true;
export const sameRuleType: Equal<Renderer.RuleType, Shared.RuleType> = true;
export const sameRule: Equal<Renderer.Rule, Shared.NotificationRule> = true;
export const sameNotification: Equal<Renderer.Notification, Shared.Notification> = true;
export const sameAlerts: Equal<Renderer.Alerts, Shared.PortalAlerts> = true;
