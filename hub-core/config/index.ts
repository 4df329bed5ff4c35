// Configuration as stored and as written in a workspace: the config store, $ENV/$SECRET variables,
// settings with their documented ranges, systems, the workspace's files and their layout.
export { pipeWithEnv, pumpWithEnv, resolveSource, transformWithEnv, unsetEnvReference, unsetEnvWarnings, withSetEnv } from './config-env.js';
export type { EnvLookup, VariableContext } from './config-env.js';
export { CONFIG_REFERENCE_KINDS, configReferences, pathText, searchConfigs } from './config-search.js';
export type { ConfigReferenceKind, ConfigSearchHit } from './config-search.js';
export { COMPONENT_ID_PATTERN, COMPONENT_ID_RULE, PIPE_NUMBER_PROPERTIES, PUMP_PROPERTIES, SYSTEM_OPTIONS, checkNumberSettings, isComponentId } from './config-settings.js';
export { ConfigStore, asConfigEntity, configKind, refuseDuplicateIds } from './config-store.js';
export type { ConfigChange, ConfigEntity, ConfigKind } from './config-store.js';
export { hasDtlKeySecret, pipeSecretReferences, substituteDtlKeySecrets, substituteEnv, substituteVariables, substituteVariablesLeniently } from './config-variables.js';
export type { ConfigVariables } from './config-variables.js';
export { CronSyntaxError, parseCron } from './cron-schedule.js';
export type { EffectivePipe } from './effective-pipe.js';
export { sesamLayout, updatedFileText } from './json-format.js';
export { RULE_TYPE_IDS, evaluateRules, pipeRules, pumpEvents, wildcardPattern } from './notification-rules.js';
export type { LocalAlert, NotificationRule, PumpEvent, RuleProblem, ScheduleFacts } from './notification-rules.js';
export { nodeMetadataSchema, pipeRegistrySchema } from './registry-schema.js';
export { bool, datasetList, headers, int, num, ref, str, strings } from './schema-parts.js';
export type { TypeOptions } from './schema-parts.js';
export { SystemRegistry, checkSystemConfig } from './systems.js';
export { configFiles, readConfigFiles } from './workspace-files.js';
export type { WorkspaceProblem } from './workspace-files.js';
export { configFileName, configFilePath, configFileText } from './workspace-layout.js';
export { fileTextKeepingLayout, workspaceFileTexts } from './workspace-texts.js';
