// The sql sink type: rows of a relational table, upserted or deleted by primary key. Run offline: each batch (the
// sink's batch_size rows: 100, or 1000 with bulk operations) is recorded in the pipe's outbox.

import type { SinkType } from '../pipe-types.js';
import type { JsonObject, JsonValue } from '../../base/index.js';
import { bool, int, str } from '../../config/index.js';
import { contentOf, countOption, defined, isDeleted, option, recordOffline } from './outbound.js';

/** The primary key's column names: the option as a list; without it the table's own key, shown here as `_id`. */
function primaryKey(sink: JsonObject): string[] | undefined {
  const pk = sink['primary_key'];
  if (typeof pk === 'string') return [pk];
  if (Array.isArray(pk) && pk.length > 0 && pk.every((c) => typeof c === 'string')) return pk as string[];
  return undefined;
}

/** The row's columns: the entity's own properties, narrowed by the (deprecated) whitelist and blacklist. */
function row(entity: JsonObject, sink: JsonObject): JsonObject {
  const cols = contentOf(entity);
  const white = sink['whitelist'];
  const black = sink['blacklist'];
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(cols)) {
    if (Array.isArray(white) && !white.includes(k)) continue;
    if (Array.isArray(black) && black.includes(k)) continue;
    out[k] = v;
  }
  return out;
}

export const sqlType: SinkType = {
  type: 'sql',
  doc: 'rows of a SQL table, upserted or deleted by primary key (run offline: recorded in the outbox)',
  options: {
    required: ['system', 'table'],
    properties: {
      system: str('a SQL system'),
      table: str('table to write'),
      schema: str('database schema'),
      primary_key: { type: ['string', 'array'], items: { type: 'string' }, description: 'the key column, or the columns of a compound key' },
      batch_size: int('rows per operation (default 100, 1000 with use_bulk_operations)', { minimum: 1 }),
      use_bulk_operations: bool('bulk upload where the database supports it'),
      truncate_table_on_first_run: bool('empty the table on the first run'),
    },
  },
  runs: 'open',
  open: recordOffline({
    batchSize: (sink) => countOption(sink, 'batch_size') ?? (sink['use_bulk_operations'] === true ? 1000 : 100),
    target: (sink) => defined({ system: option(sink, 'system'), schema: option(sink, 'schema'), table: option(sink, 'table') }),
    record(entity, sink) {
      const pk = primaryKey(sink);
      const columns = row(entity, sink);
      let key: JsonValue;
      if (pk === undefined) key = entity['_id'] ?? null;
      else if (pk.length === 1) key = columns[pk[0]!] ?? entity[pk[0]!] ?? null;
      else key = Object.fromEntries(pk.map((c) => [c, columns[c] ?? entity[c] ?? null]));
      return isDeleted(entity) ? { key, operation: 'delete', body: null } : { key, operation: 'upsert', body: columns };
    },
  }),
};
