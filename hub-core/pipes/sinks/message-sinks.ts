// Sinks that send one message per entity (mail, sms) and the solr index: kept in configuration as the service
// defines them and run offline, each batch recorded in the pipe's outbox.

import type { SinkType } from '../pipe-types.js';
import { str } from '../../config/index.js';
import { contentOf, defined, isDeleted, option, recordOffline, type OutboundShape } from './outbound.js';

/** One message per entity: what it would say is the entity's own properties. */
const message: OutboundShape = {
  batchSize: () => 1,
  target: (sink) => defined({ system: option(sink, 'system') }),
  record: (entity) => ({ key: entity['_id'] ?? null, operation: 'send', ...(isDeleted(entity) ? { deleted: true } : {}), body: contentOf(entity) }),
};

export const smsType: SinkType = {
  type: 'sms',
  doc: 'text messages, one per entity (run offline: recorded in the outbox)',
  options: { required: ['system'], properties: { system: str('an SMS system') } },
  runs: 'open',
  open: recordOffline(message),
};

export const solrType: SinkType = {
  type: 'solr',
  doc: 'documents of a Solr index, added or deleted by _id (run offline: recorded in the outbox)',
  options: { required: ['system'], properties: { system: str('a system:solr system') } },
  runs: 'open',
  open: recordOffline({
    target: (sink) => defined({ system: option(sink, 'system') }),
    record: (entity) =>
      isDeleted(entity) ? { key: entity['_id'] ?? null, operation: 'delete', body: null } : { key: entity['_id'] ?? null, operation: 'add', body: contentOf(entity) },
  }),
};

/** The mail sink's offline run (its configuration is in mail.ts). */
export const openMailOffline = recordOffline(message);
