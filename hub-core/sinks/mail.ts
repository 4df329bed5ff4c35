// The mail sink type: an email message per entity.

import type { SinkType } from '../pipe-types.js';
import { str } from '../schema-parts.js';
import { openMailOffline } from './message-sinks.js';

export const mailType: SinkType = {
  type: 'mail',
  doc: 'email messages, one per entity (run offline: recorded in the outbox)',
  options: { properties: { system: str('a mail (SMTP) system') } },
  runs: 'open',
  open: openMailOffline,
};
