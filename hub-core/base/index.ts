// The smallest parts every other folder uses: errors, JSON, time, text files, globs, entities, the
// offline error and configuration problems. Imports nothing of hub-core.
export { systemClock } from './clock.js';
export type { Clock, TimerHandle } from './clock.js';
export { hasErrors } from './config-error.js';
export type { Complain, ConfigError } from './config-error.js';
export { floatLiteralText, parseConfigText } from './config-json.js';
export { EntityError, MAINTAINED_PROPERTIES, PreparedEntities, prepareEntity, storedEntity, storedEntityJson, stripInternal } from './entity.js';
export type { Entity, PreparedEntity, StoredEntity } from './entity.js';
export { HubError, UnsetVariableError, badRequest, conflict, notFound } from './errors.js';
export { anyChar, anyRun, caseInsensitiveAtom, compileGlob, literalAtom } from './glob.js';
export type { CharTest, GlobAtom, TextMatcher } from './glob.js';
export { canonicalJson, isJsonObject, jsonTextProblem } from './json.js';
export { bigIntegerReviver, hasLongDigitRun, integerValue, parseJson } from './exact-json.js';
export type { JsonObject, JsonPrimitive, JsonValue } from './json.js';
export { OfflineError, isOfflineError, isUnreachable } from './offline.js';
export type { ApiToken, AuthenticationProvider, License, Member, NewApiToken, NewApiTokenRequest, Notification, NotificationQuery, NotificationRule, PortalAlerts, PortalInfo, PortalRecord, Profile, Recipient, Role, RuleType, Subscription, SubscriptionConnection, SubscriptionUpdate, SummaryEntry, VpnConnection } from './portal-types.js';
export { BOM, readTextFile, startsWithBom, withoutBom } from './text-file.js';
export { checkVariableNames } from './variable-names.js';
