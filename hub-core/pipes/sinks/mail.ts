// The mail sink type (hub/documentation/service-configuration/pipes/configuration-sinks-mail.rst): an outbound sink
// that sends one message per entity through an SMTP system. This module is its configuration only; how an outbound
// sink runs offline is in message-sinks.ts (recorded in the outbox).
//
// The documentation's property table marks body_template and subject_template as required, yet says a message can
// take them from the entity instead (body_template_property, subject_template_property, with defaults), and that at
// most one of each pair may be given. We follow the prose: only `system` is required, and giving both of a pair is an
// error.

import type { SinkType } from '../pipe-types.js';
import { str } from '../../config/index.js';
import { openMailOffline } from './message-sinks.js';

const PAIRS: readonly (readonly [string, string])[] = [
  ['body_template', 'body_template_property'],
  ['subject_template', 'subject_template_property'],
  ['text_body_template', 'text_body_template_property'],
];

export const mailType: SinkType = {
  type: 'mail',
  doc: 'sends an email per entity through an SMTP system (an outbound sink; run offline: recorded in the outbox)',
  options: {
    required: ['system'],
    properties: {
      system: str('the id of a system:smtp system'),
      body_template: str('a Jinja template for the message body (HTML or text); the entity\'s properties are its variables'),
      body_template_property: str('the entity property holding the body template (default "body_template")'),
      text_body_template: str('a Jinja template for the plain-text part of the message'),
      text_body_template_property: str('the entity property holding the plain-text template (default "text_body_template")'),
      subject_template: str('a Jinja template for the subject'),
      subject_template_property: str('the entity property holding the subject template (default "subject_template")'),
      recipients: str('comma-separated email addresses; otherwise read from recipients_property'),
      recipients_property: str('the entity property holding the recipients (default "recipients")'),
      mail_from: str('the sender address of every message'),
      unhandled_template_variable_replacement: { enum: ['debug', 'empty_string', 'strict'], description: 'what an unknown template variable becomes (default "debug": kept as written)' },
    },
  },
  check(sink, err) {
    for (const [a, b] of PAIRS) {
      if (sink[a] !== undefined && sink[b] !== undefined) err(`$.sink.${b}`, `give at most one of "${a}" and "${b}"`);
    }
    for (const key of ['system', 'mail_from', 'recipients', ...PAIRS.flat()]) {
      if (sink[key] !== undefined && typeof sink[key] !== 'string') err(`$.sink.${key}`, `"${key}" must be a string`);
    }
  },
  runs: 'open',
  open: openMailOffline,
};
