// A compile-time check, no test to run: the account portal's record shapes have one home, hub-core/base/portal-types.ts.
// The desktop host's portal client answers them and its /desktop/portal routes pass them on; the workbench reads them
// through renderer/src/components/portal/portal.ts, whose own check (portal-types-check.ts, run by svelte-check) fails
// when it declares a copy. `npm run build` and `npm run typecheck` fail here when the host's client stops answering
// the shared shapes.
import type * as Shared from '../../hub-core/base/index.js';
import type { PortalClient } from '../../main/remote/portal-client.js';

/** True only when A and B are the same type (also for readonly and optional members). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Answer<K extends keyof PortalClient> = PortalClient[K] extends (...args: never[]) => Promise<infer R> ? R : never;

export const sameInfo: Equal<Answer<'info'>, Shared.PortalInfo> = true;
export const sameProfile: Equal<Answer<'profile'>, Shared.Profile> = true;
export const sameSubscriptions: Equal<Answer<'subscriptions'>, Shared.Subscription[]> = true;
export const sameRoles: Equal<Answer<'roles'>, Shared.Role[]> = true;
export const sameRuleTypes: Equal<Answer<'ruleTypes'>, Shared.RuleType[]> = true;
export const sameMembers: Equal<Answer<'members'>, Shared.Member[]> = true;
export const sameApiTokens: Equal<Answer<'apiTokens'>, Shared.ApiToken[]> = true;
export const sameNewApiToken: Equal<Answer<'createApiToken'>, Shared.NewApiToken> = true;
export const sameRules: Equal<Answer<'rules'>, Shared.NotificationRule[]> = true;
export const sameNotifications: Equal<Answer<'notifications'>, Shared.Notification[]> = true;
