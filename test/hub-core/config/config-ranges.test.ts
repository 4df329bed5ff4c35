// Config validation as strict as the service's (issue 32.3): number settings with their documented ranges
// (configuration-pipes.rst: batch_size and checkpoint_interval "Integer(>=1)"; configuration-pump.rst; the options of
// source, sink and system types), embedded source entities with an "_id", component ids without control characters
// or lone surrogates, and one id twice in a request refused for pipes and systems alike. Every refusal is a 400
// naming the path and the allowed values, on every route that stores configuration, and nothing stored changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { expectError, pipePath } from '../../helpers/api.js';

type Json = Record<string, unknown>;

const hub = useHub();

const GOOD: Json = { _id: 'kept', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] }, pump: { mode: 'manual' } };
const SYSTEM: Json = { _id: 'remote', type: 'system:url', base_url: 'http://127.0.0.1:9/' };

/** A pipe setting that the service refuses: the change to GOOD, the path named and a text of the allowed values. */
interface Bad {
  what: string;
  change: Json;
  path: string;
  allowed: RegExp;
}

const LONG = 'an integer from 1 to 9007199254740991';
const BAD_PIPES: Bad[] = [
  { what: 'batch_size 0', change: { batch_size: 0 }, path: '$.batch_size', allowed: new RegExp(LONG) },
  { what: 'batch_size "ten"', change: { batch_size: 'ten' }, path: '$.batch_size', allowed: new RegExp(LONG) },
  { what: 'batch_size 1e308', change: { batch_size: 1e308 }, path: '$.batch_size', allowed: new RegExp(LONG) },
  { what: 'batch_size 2.5', change: { batch_size: 2.5 }, path: '$.batch_size', allowed: new RegExp(LONG) },
  { what: 'batch_size -1', change: { batch_size: -1 }, path: '$.batch_size', allowed: new RegExp(LONG) },
  { what: 'checkpoint_interval 0', change: { checkpoint_interval: 0 }, path: '$.checkpoint_interval', allowed: new RegExp(LONG) },
  { what: 'schedule_interval 0', change: { pump: { schedule_interval: 0 } }, path: '$.pump.schedule_interval', allowed: /a number \(greater than 0\)/ },
  { what: 'schedule_interval "ten"', change: { pump: { schedule_interval: 'ten' } }, path: '$.pump.schedule_interval', allowed: /a number \(greater than 0\)/ },
  { what: 'rescan_run_count 0', change: { pump: { mode: 'manual', rescan_run_count: 0 } }, path: '$.pump.rescan_run_count', allowed: new RegExp(LONG) },
  { what: 'max_read_retries -1', change: { pump: { mode: 'manual', max_read_retries: -1 } }, path: '$.pump.max_read_retries', allowed: /an integer from 0 to/ },
  { what: 'max_retries_per_entity 1.5', change: { pump: { mode: 'manual', max_retries_per_entity: 1.5 } }, path: '$.pump.max_retries_per_entity', allowed: /an integer from 0 to/ },
  { what: 'a json source\'s page_size 0', change: { source: { type: 'json', system: 'remote', page_size: 0 } }, path: '$.source.page_size', allowed: new RegExp(LONG) },
  { what: 'a json sink\'s batch_size 1e308', change: { sink: { type: 'json', system: 'remote', batch_size: 1e308 } }, path: '$.sink.batch_size', allowed: new RegExp(LONG) },
  { what: 'a negative circuit breaker', change: { sink: { type: 'dataset', circuit_breaker_threshold_count: -3 } }, path: '$.sink.circuit_breaker_threshold_count', allowed: /a number \(at least 0\)/ },
  { what: 'an embedded entity without _id', change: { source: { type: 'embedded', entities: [{ _id: 'a' }, { name: 'no id' }] } }, path: '$.source.entities[1]._id', allowed: /needs an "_id": a string/ },
  { what: 'an embedded entity with a number _id', change: { source: { type: 'embedded', entities: [{ _id: 5 }] } }, path: '$.source.entities[0]._id', allowed: /"_id" is a string/ },
  { what: 'an embedded entity that is no object', change: { source: { type: 'embedded', entities: ['a'] } }, path: '$.source.entities[0]', allowed: /a JSON object/ },
  { what: 'a batch_size whose $ENV value is "ten"', change: { batch_size: '$ENV(word)' }, path: '$.batch_size', allowed: new RegExp(`${LONG}, not "ten" \\(the value of \\$ENV\\(word\\)\\)`) },
];

/** Ids the service refuses: control characters (C0, DEL, C1 with NEL) and lone surrogates. */
const BAD_IDS = ['with\u0085nel', 'with\u0000nul', 'with\u001fus', 'with\u007fdel', 'with\u009fapc', 'lone\ud800', 'lone\udc00trail'];

/** What is stored: the node configuration, the pipe and system ids, and the stored configurations of both. */
async function stored(): Promise<Json> {
  const ids = (list: Json[]): unknown[] => list.map((x) => x['_id']);
  return {
    config: await hub.json<Json[]>('/config'),
    pipes: ids(await hub.json<Json[]>('/pipes')),
    systems: ids(await hub.json<Json[]>('/systems')),
    kept: await hub.json(`${pipePath('kept')}/config`),
    remote: await hub.json('/systems/remote/config'),
  };
}

/** Send, expect a 400 whose text names `path` and matches `allowed`; answers the number of refusals tried (1). */
async function refused(what: string, method: string, path: string, json: unknown, named: string[], allowed?: RegExp): Promise<number> {
  const res = await hub.fetch(path, { method, json });
  const body = await expectError(res, 400, `${what} (${method} ${path})`);
  const text = `${body.error} ${typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail)}`;
  for (const n of named) assert.ok(text.includes(n), `${what} (${method} ${path}): the refusal names ${n}: ${text}`);
  if (allowed) assert.match(text, allowed, `${what} (${method} ${path}): the refusal says what is allowed`);
  return 1;
}

test('settings out of their documented range, embedded entities without _id and unusable ids are refused on every route, and nothing changes', async (t) => {
  await hub.json('/env', { method: 'PUT', json: { word: 'ten', fifty: '50' } });
  await hub.json('/systems', { method: 'POST', json: [SYSTEM] });
  await hub.json('/pipes', { method: 'POST', json: [GOOD] });
  const before = await stored();
  let tried = 0;

  for (const bad of BAD_PIPES) {
    const pipe = { ...GOOD, ...bad.change };
    const fresh = { ...pipe, _id: 'fresh' };
    const named = [bad.path];
    tried += await refused(bad.what, 'POST', '/pipes', [fresh], ['fresh', ...named], bad.allowed);
    tried += await refused(bad.what, 'PUT', `${pipePath('kept')}/config`, pipe, ['kept', ...named], bad.allowed);
    tried += await refused(bad.what, 'PUT', '/config', [SYSTEM, pipe], ['kept', ...named], bad.allowed);
  }
  for (const id of BAD_IDS) {
    const what = `id ${JSON.stringify(id)}`;
    tried += await refused(what, 'POST', '/pipes', [{ ...GOOD, _id: id }], [], /(_id|surrogate|UTF|unpaired|invalid)/i);
    tried += await refused(what, 'POST', '/systems', [{ ...SYSTEM, _id: id }], [], /(_id|surrogate|UTF|unpaired|invalid)/i);
    tried += await refused(what, 'PUT', '/config', [SYSTEM, GOOD, { ...GOOD, _id: id }], [], /(_id|surrogate|UTF|unpaired|invalid)/i);
  }
  // The C1 control NEL is valid UTF-8 and JSON: the id check itself refuses it, and says so.
  tried += await refused('a pipe id with NEL', 'POST', '/pipes', [{ ...GOOD, _id: 'n\u0085l' }], ['$._id', 'U+007F-U+009F']);
  tried += await refused('a system id with NEL', 'POST', '/systems', [{ ...SYSTEM, _id: 'n\u0085l' }], ['$._id', 'U+007F-U+009F']);

  // System number settings.
  tried += await refused('a system port 0', 'POST', '/systems', [{ _id: 'db', type: 'system:mysql', host: 'h', port: 0 }], ['$.port'], /an integer from 1 to 65535/);
  tried += await refused('a system port 70000', 'PUT', '/systems/remote/config', { _id: 'remote', type: 'system:mysql', host: 'h', port: 70000 }, ['$.port'], /an integer from 1 to 65535/);
  tried += await refused('a system timeout "ten"', 'PUT', '/systems/remote/config', { ...SYSTEM, timeout: 'ten' }, ['$.timeout'], /a number \(greater than 0\)/);

  // One id twice in one request: pipes and systems alike, with force too (one of the two would be lost).
  tried += await refused('one pipe id twice', 'POST', '/pipes', [{ ...GOOD, _id: 'twin' }, { ...GOOD, _id: 'twin', batch_size: 5 }], ['twin', '$[0]._id, $[1]._id']);
  tried += await refused('one system id twice', 'POST', '/systems', [{ ...SYSTEM, _id: 'twin-s' }, { ...SYSTEM, _id: 'twin-s', base_url: 'http://127.0.0.1:8/' }], ['twin-s', '$[0]._id, $[1]._id']);
  tried += await refused('one system id twice, forced', 'POST', '/systems?force=true', [{ ...SYSTEM, _id: 'twin-s' }, { ...SYSTEM, _id: 'twin-s' }], ['twin-s']);
  tried += await refused('one pipe id twice, forced', 'POST', '/pipes?force=true', [{ ...GOOD, _id: 'twin' }, { ...GOOD, _id: 'twin' }], ['twin']);
  tried += await refused('one system id twice in the node config', 'PUT', '/config', [SYSTEM, SYSTEM, GOOD], ['remote']);

  assert.deepEqual(await stored(), before, 'no refused request changed anything');
  t.diagnostic(`${tried} refusals tried, each answered 400 naming the path`);
});

test('what the service accepts is still accepted: settings in range, whole $ENV references, embedded alternatives the transform gives an _id', async () => {
  await hub.json('/env', { method: 'PUT', json: { word: 'ten', fifty: '50', 'node-env': 'dev' } });
  const ok: Json[] = [
    { ...GOOD, _id: 'in-range', batch_size: 1, checkpoint_interval: 1, pump: { mode: 'manual', schedule_interval: 0.5, max_read_retries: 0, rescan_run_count: 1 } },
    { ...GOOD, _id: 'by-env', batch_size: '$ENV(fifty)', pump: { mode: 'manual', schedule_interval: '$ENV(fifty)' } },
    { ...GOOD, _id: 'unset-env', batch_size: '$ENV(not-set-yet)' },
    { ...GOOD, _id: 'big', batch_size: 9007199254740991, pump: { schedule_interval: 999999999 } },
    {
      // As a real project has it: the picked alternative's entities have no _id, the transform gives them one.
      _id: 'alt',
      type: 'pipe',
      source: { type: 'conditional', condition: '$ENV(node-env)', alternatives: { dev: { type: 'embedded', entities: [{ id: 'x1' }, { id: 'x2' }] } } },
      transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', '_id', '_S.id']] } },
      pump: { mode: 'manual' },
    },
    { ...GOOD, _id: 'emoji-\ud83d\ude00' },
  ];
  const infos = await hub.json<Json[]>('/pipes', { method: 'POST', json: ok });
  assert.equal(infos.length, ok.length);
  const alt = await hub.json<{ runtime: { 'config-errors': { level: string; elements: string }[] } }>(`${pipePath('alt')}`);
  assert.deepEqual(
    alt.runtime['config-errors'].map((e) => `${e.level} ${e.elements}`),
    ['warning $.source.alternatives.dev.entities[0]._id', 'warning $.source.alternatives.dev.entities[1]._id'],
  );
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'db', type: 'system:mysql', host: 'h', port: '$ENV(db-port)' }, { _id: 'db2', type: 'system:mysql', host: 'h', port: 5000 }] });
});
