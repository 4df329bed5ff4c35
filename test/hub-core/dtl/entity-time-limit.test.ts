// The bound on one entity's transform: 10 s, as docs/security-and-limits.md promises, unless a hub is started with
// DATAHUB_ENTITY_TIME_LIMIT_MS (the suite's runaway tests use 2 s so that each runaway ends sooner).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { entityTimeLimitMs } from '../../../hub-core/dtl/index.js';

test('one entity may take 10 s by default; DATAHUB_ENTITY_TIME_LIMIT_MS sets another bound of at least 500 ms', () => {
  assert.equal(entityTimeLimitMs({}), 10_000);
  assert.equal(entityTimeLimitMs({ DATAHUB_ENTITY_TIME_LIMIT_MS: '2000' }), 2000);
  for (const ignored of ['100', 'ten', '2.5', '', '-3000']) assert.equal(entityTimeLimitMs({ DATAHUB_ENTITY_TIME_LIMIT_MS: ignored }), 10_000, ignored);
});
