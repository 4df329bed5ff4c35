// The routes behind review and accept in the Tests view (POST /desktop/workspace/test/accept and …/ignore) and the
// "re-run affected tests on save" switch (/desktop/workspace/test/loop): bad input is a 4xx JSON error that writes
// nothing, every route wants the token, an accept of one property writes exactly that value into the file, and a save
// with the switch on runs exactly the tests the change can affect. The project is test/helpers/review-project.ts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { waitFor } from '../../helpers/api.js';
import { PEOPLE_EXPECTED, PEOPLE_SPEC, writeReviewProject } from '../../helpers/review-project.js';
import type { WorkspaceTestResult } from '../../../hub-core/desktop-types.js';

let hub: HubProcess;
let dir: string;
const file = (name: string): string => readFileSync(join(dir, 'node', 'expected', name), 'utf8');

async function desktop(method: string, path: string, body?: unknown, token: string | null = hub.token): Promise<{ status: number; body: { error?: string; detail?: string } & Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (token !== null) headers['authorization'] = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${hub.url}/desktop${path}`, { method, headers, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as { error?: string }) };
}

before(async () => {
  dir = tempDir('tests-review-api-');
  writeReviewProject(dir);
  hub = await startHub({ args: ['--workspace', dir] });
});

after(async () => {
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  if (dir) removeDir(dir);
});

test('every review route wants the token', async () => {
  for (const [method, path, body] of [
    ['POST', '/workspace/test/accept', { test: 'people' }],
    ['POST', '/workspace/test/ignore', { test: 'people', property: ['age'] }],
    ['GET', '/workspace/test/loop', undefined],
    ['PUT', '/workspace/test/loop', { enabled: true }],
  ] as const) {
    const r = await desktop(method, path, body, null);
    assert.equal(r.status, 401, `${method} ${path}: ${JSON.stringify(r.body)}`);
  }
  assert.equal(file('people.json'), PEOPLE_EXPECTED);
});

test('bad input is a 4xx JSON error in words, and nothing is written', async () => {
  const cases: [string, string, unknown, RegExp][] = [
    ['/workspace/test/accept', 'POST', {}, /test/],
    ['/workspace/test/accept', 'POST', { test: '' }, /test|fewer than 1/],
    ['/workspace/test/accept', 'POST', { test: 'people', extra: 1 }, /extra|additional/],
    ['/workspace/test/accept', 'POST', { test: 'people', entity: 'p2', property: [] }, /property|fewer than 1/],
    ['/workspace/test/accept', 'POST', { test: 'people', entity: 'p2', property: [1] }, /property|string/],
    ['/workspace/test/accept', 'POST', '{"test": ', /JSON|body/],
    ['/workspace/test/accept', 'POST', { test: 'nope' }, /no test "nope"/],
    ['/workspace/test/accept', 'POST', { test: 'people', property: ['age'] }, /name the entity/],
    ['/workspace/test/accept', 'POST', { test: 'people', entity: 'zz' }, /entity "zz" is neither in expected\/people\.json nor in the output/],
    ['/workspace/test/accept', 'POST', { test: 'people', entity: 'p3', property: ['age'] }, /entity "p3" is not both expected and in the output/],
    ['/workspace/test/accept', 'POST', { test: 'people', entity: 'p2', property: ['age', 'deeper'] }, /has no property age\.deeper on either side/],
    ['/workspace/test/ignore', 'POST', { test: 'people' }, /property/],
    ['/workspace/test/ignore', 'POST', { test: 'people', property: [''] }, /property|fewer than 1/],
    ['/workspace/test/ignore', 'POST', { test: 'nope', property: ['age'] }, /no test "nope"/],
    ['/workspace/test/loop', 'PUT', {}, /enabled/],
    ['/workspace/test/loop', 'PUT', { enabled: 'yes' }, /enabled|boolean/],
  ];
  for (const [path, method, body, what] of cases) {
    const r = await desktop(method, path, body);
    assert.ok(r.status >= 400 && r.status < 500, `${method} ${path} ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body)}`);
    assert.equal(typeof r.body.error, 'string');
    assert.match(`${r.body.error} ${r.body.detail ?? ''}`, what, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
  }
  assert.equal(file('people.json'), PEOPLE_EXPECTED, 'the expected file is as it was, byte for byte');
  assert.equal(file('people.test.json'), PEOPLE_SPEC);
});

test('accepting one nested property writes exactly that value; the rest of the file stays as written', async () => {
  const r = await desktop('POST', '/workspace/test/accept', { test: 'people', entity: 'p2', property: ['address', 'zip'] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body['file'], 'expected/people.json');
  assert.equal(r.body['written'], true);
  assert.equal(file('people.json'), PEOPLE_EXPECTED.replace('"zip": "0151"', '"zip": "0150"'));
  const result = r.body['result'] as WorkspaceTestResult;
  assert.equal(result.status, 'failed');
  const p2 = result.diffs.find((d) => d.id === 'p2');
  assert.deepEqual(p2?.changes.map((c) => c.path), ['age', 'name'], 'address.zip agrees now; age and name still differ');
  assert.equal(file('people.test.json'), PEOPLE_SPEC, 'the spec is untouched');

  // The same again: nothing to write.
  const again = await desktop('POST', '/workspace/test/accept', { test: 'people', entity: 'p2', property: ['address', 'zip'] });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(again.body['written'], false);
});

test('accepting into an expected file that is not there writes a new one in the layout of datahub test --update', async () => {
  rmSync(join(dir, 'node', 'expected', 'places.json'));
  const r = await desktop('POST', '/workspace/test/accept', { test: 'places' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.match(String(r.body['message']), /\(a new file\)/);
  // places copies _id and city of its one embedded entity; sorted keys, two-space indents, a final newline.
  assert.equal(file('places.json'), '[\n  {\n    "_id": "c1",\n    "city": "oslo"\n  }\n]\n');
  assert.equal((r.body['result'] as WorkspaceTestResult).status, 'passed');
});

test('with "re-run affected tests on save" on, saving a pipe runs its tests and those downstream, saying why', async () => {
  const on = await desktop('PUT', '/workspace/test/loop', { enabled: true });
  assert.equal(on.status, 200, JSON.stringify(on.body));
  assert.equal(on.body['enabled'], true);
  const config = await hub.json<Record<string, unknown>>('/pipes/people/config');
  const saved = await hub.fetch('/pipes/people/config', { method: 'PUT', json: { ...config, description: 'saved from the workbench' } });
  assert.equal(saved.status, 200, await saved.text());
  type Loop = { last: { status: string; changed: string[]; tests: { name: string; reasons: string[] }[]; report: { tests: { name: string; status: string }[] } | null } | null };
  const last = await waitFor('the re-run', async () => {
    const s = (await desktop('GET', '/workspace/test/loop')).body as unknown as Loop;
    return s.last?.status === 'done' ? s.last : undefined;
  }, 60_000);
  assert.deepEqual(last.changed, ['pipes/people.conf.json']);
  const why = Object.fromEntries(last.tests.map((t) => [t.name, t.reasons.join('; ')]));
  assert.deepEqual(Object.keys(why).sort(), ['people', 'people-adults'], 'places reads nothing of people: not run');
  assert.match(why['people']!, /pipe people changed \(pipes\/people\.conf\.json\)/);
  assert.match(why['people-adults']!, /downstream of pipe people changed.*people-adults \(source "people"\)/);
  assert.deepEqual(last.report?.tests.map((t) => `${t.name} ${t.status}`).sort(), ['people failed', 'people-adults passed']);
  const off = await desktop('PUT', '/workspace/test/loop', { enabled: false });
  assert.equal(off.body['enabled'], false);
});

test('the loop keeps its hub between saves and still gives what a fresh run gives: no entity of an earlier run is left', async () => {
  assert.equal((await desktop('PUT', '/workspace/test/loop', { enabled: true })).status, 200);
  type Loop = { last: { seq: number; status: string; report: { tests: { name: string; status: string; diffText: string[] }[] } | null } | null };
  let seen = ((await desktop('GET', '/workspace/test/loop')).body as unknown as Loop).last?.seq ?? 0;
  const config = await hub.json<Record<string, unknown>>('/pipes/people-adults/config');
  // hub/dtl/transforms.rst: `filter` drops the entities its expression is false for. Over 37 leaves p2 (40) alone,
  // so the expected p1 is missing; over 30 gives p1 and p2 again, as expected.
  const saveOver = async (age: number): Promise<{ status: string; diffText: string[] }> => {
    const rules = { default: [['filter', ['gt', '_S.age', age]], ['copy', '_id'], ['add', 'name', '_S.name']] };
    const saved = await hub.fetch('/pipes/people-adults/config', { method: 'PUT', json: { ...config, transform: { type: 'dtl', rules } } });
    assert.equal(saved.status, 200, await saved.text());
    const last = await waitFor(`the re-run after "over ${age}"`, async () => {
      const s = ((await desktop('GET', '/workspace/test/loop')).body as unknown as Loop).last;
      return s !== null && s.seq > seen && s.status === 'done' ? s : undefined;
    }, 60_000);
    seen = last.seq;
    const result = last.report?.tests.find((t) => t.name === 'people-adults');
    assert.ok(result, 'people-adults was re-run');
    return result;
  };
  const over37 = await saveOver(37);
  assert.equal(over37.status, 'failed');
  assert.match(over37.diffText.join('\n'), /p1/, 'p1 is named as missing');
  assert.equal((await saveOver(30)).status, 'passed');
  const again = await saveOver(37);
  assert.equal(again.status, 'failed', 'p1 of the run before is not left in the kept hub');
  await saveOver(30);
  assert.equal((await desktop('PUT', '/workspace/test/loop', { enabled: false })).body['enabled'], false);
});
