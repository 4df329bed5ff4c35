// The notification rule types the portal offers on a pipe (section 2.10) and those built in (section 4.5.3).
import type { Json } from './types.js';

const NUMERIC_METRICS = [
  'Entities processed',
  'Changed entities',
  'Failed retries',
  'Dead entities',
  'Failed retried entities',
  'Successfully retried entities',
  'Read errors',
  'Write errors',
  'Sink time',
  'Source time',
  'Transform time',
];
const TEXT_METRICS = ['Reason why stopped', 'Traceback', 'Additional low-level errormessage', 'Additional low-level traceback'];

const period = {
  type: 'object',
  title: 'Period',
  required: ['amount', 'unit'],
  properties: { amount: { type: 'integer', title: 'Amount', minimum: 1 }, unit: { type: 'string', title: 'Unit', enum: ['minutes', 'hours', 'days'] } },
  additionalProperties: false,
};
const limitSchema = (withPeriod: boolean): Json => ({
  type: 'object',
  required: withPeriod ? ['metric', 'limit', 'period'] : ['metric', 'limit'],
  properties: {
    metric: { type: 'string', title: 'Metric', enum: NUMERIC_METRICS },
    limit: { type: 'number', title: 'Limit', minimum: 0 },
    ...(withPeriod ? { period } : {}),
  },
  additionalProperties: false,
});
const noParameters: Json = { type: 'object', properties: {}, additionalProperties: false };

/** The rule types a user can put on a pipe (section 2.10), in the spec's order. */
export const RULE_TYPES: Json[] = [
  { type: 'pump_completed_value_too_low', name: 'Value too low', description: 'Triggers when a metric of a completed run is below the limit', schema: limitSchema(false) },
  { type: 'pump_completed_value_too_high', name: 'Value too high', description: 'Triggers when a metric of a completed run is above the limit', schema: limitSchema(false) },
  {
    type: 'pump_completed_value_too_low_over_time',
    name: 'Value too low over time',
    description: 'Triggers when a metric stays below the limit for a period',
    schema: limitSchema(true),
  },
  {
    type: 'pump_completed_value_too_high_over_time',
    name: 'Value too high over time',
    description: 'Triggers when a metric stays above the limit for a period',
    schema: limitSchema(true),
  },
  {
    type: 'pump_started_overdue',
    name: 'Pump started overdue',
    description: 'Triggers when the next expected start is passed by more than 300 seconds plus the grace period',
    schema: { type: 'object', properties: { grace_period: { type: 'integer', title: 'Grace period (seconds)', minimum: 0 } }, additionalProperties: false },
  },
  {
    type: 'pump_finished_overdue',
    name: 'Pump finished overdue',
    description: 'Triggers when a run lasts longer than 300 seconds plus the limit',
    schema: { type: 'object', required: ['limit'], properties: { limit: { type: 'integer', title: 'Limit (seconds)', minimum: 0 } }, additionalProperties: false },
  },
  { type: 'pump_failed', name: 'Pump failed', description: 'Triggers when the last run failed', schema: noParameters },
  { type: 'pump_restore_completed', name: 'Restore completed', description: 'Triggers when the pipe, its state and data were restored from backup', schema: noParameters },
  { type: 'pump_offset_set', name: 'Pump offset set', description: "Triggers when the pipe's offset is set, by hand or automatically", schema: noParameters },
  {
    type: 'pattern_match',
    name: 'Pattern match',
    description: 'Triggers when a text metric matches one of the patterns anywhere (* any characters, ? one); an empty value never matches',
    schema: {
      type: 'object',
      required: ['metric', 'patterns'],
      properties: {
        metric: { type: 'string', title: 'Value', enum: TEXT_METRICS },
        patterns: { type: 'array', title: 'Patterns', items: { type: 'string', minLength: 1 }, minItems: 1 },
        case_sensitive: { type: 'boolean', title: 'Case sensitive', default: false },
      },
      additionalProperties: false,
    },
  },
];

/** Built in, never offered: on every pipe with user-defined rules; alerts in the alert list only. */
export const HEARTBEAT_RULE = { type: 'node_heartbeat_overdue', name: 'Node heartbeat overdue' };
/** Built in on every subscription (section 4.5.3). */
export const SUBSCRIPTION_RULES = {
  store_disk_usage_upper_limit: 'Store disk usage upper limit',
  license_expiration_date: 'License expiration date',
} as const;
export type SubscriptionRuleType = keyof typeof SUBSCRIPTION_RULES;
