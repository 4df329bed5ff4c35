// A pipe whose transform takes a $SECRET as the key of encrypt/decrypt runs in a pipe worker like any other (issue 32,
// point 1): the worker is handed exactly the secret values the transform names, for that job only, so a stop ends a
// runaway run by terminating the worker while /api/health answers. Before, such a run stayed on the hub's thread,
// where one runaway entity held the thread that answers the API for up to 10 s at a time. The output is what the
// documentation and tokens made outside this engine say, and the secret value is in no answer, log or stored file.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { useHub } from '../../helpers/hub-process.js';
import { pumpOperation, runPump, sleep, waitFor } from '../../helpers/api.js';
import { stopRunawayInWorker, whileHealthPolled } from '../../helpers/runaway.js';

type Json = Record<string, unknown>;

const hub = useHub({ env: { DATAHUB_PIPE_WORKERS: '2' } });

// Fernet tokens made with Python's `cryptography` package, independently of this engine (as in dtl-cases/misc.ts):
//   key = base64.urlsafe_b64encode(bytes(range(32)));  Fernet(key).encrypt("hello wörld".encode())
const FERNET_KEY = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
const TOKEN_HELLO = 'gAAAAABrAno97DRPhbVZ4aje5bTh12uKiNMNbZBIEbsP0wnIoaodmbQPcuduliyAJyFcfjp94VoJpupFAyjTZOWIO3jgS5DXyg==';
/** A password, not a Fernet key: its SHA-256 digest is the key (hub/dtl/dtl-functions-misc.rst, encrypt). */
const PASSPHRASE = 'worker-passphrase-that-must-not-leak-5d2a';

/**
 * A Fernet token of `plaintext` under `key` (https://github.com/fernet/spec): 0x80, the time, an IV, the AES-128-CBC
 * ciphertext under the key's second half, and an HMAC-SHA256 under its first half, in URL-safe base64.
 */
function fernetToken(key: string, plaintext: string): string {
  const raw = Buffer.from(key, 'base64');
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-128-cbc', raw.subarray(16, 32), iv);
  const time = Buffer.alloc(8);
  time.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 1000)));
  const body = Buffer.concat([Buffer.from([0x80]), time, iv, cipher.update(plaintext, 'utf8'), cipher.final()]);
  const mac = createHmac('sha256', raw.subarray(0, 16)).update(body).digest();
  return Buffer.concat([body, mac]).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Far more than the 10 s the hub allows one entity: only the stop can end it early. */
const SPIN = ['add', 'n', ['count', ['map', ['sum', ['range', 0, 100000]], ['range', 0, 100000]]]];
const runningInWorkers = async (): Promise<unknown> => ((await hub.json<Json>('/status'))['pipe_workers'] as Json)['running'];

/** Every file under the hub's data folder holds none of `values` (as bytes, in UTF-8). */
function assertNotStored(dir: string, values: string[]): void {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      assertNotStored(path, values);
      continue;
    }
    const bytes = readFileSync(path);
    for (const v of values) assert.equal(bytes.indexOf(Buffer.from(v, 'utf8')), -1, `${path} holds a secret value`);
  }
}

/** Every answer a user can get about `pipes`: their config, pump, execution log, output and the hub's status. */
async function answersAbout(pipes: string[]): Promise<string> {
  const paths = ['/status', '/pipes', '/secrets'];
  for (const p of pipes) {
    paths.push(`/pipes/${p}`, `/pipes/${p}/pump`, `/datasets/${encodeURIComponent(`system:pump_execution:${p}`)}/entities`, `/datasets/${p}/entities`);
  }
  let all = '';
  for (const p of paths) {
    const res = await hub.fetch(p);
    all += `${p} ${res.status} ${await res.text()}\n`;
  }
  return all;
}

test('a pipe keyed by a $SECRET runs in a worker and gives what the tokens and the docs say, the secret in no answer', async () => {
  const _note =
    'datanav/docs hub/dtl/dtl-functions-misc.rst, encrypt/decrypt: a key is a Fernet key or a password; decrypt gives back what ' +
    'encrypt was given, and a token made with another key gives nothing. TOKEN_HELLO was made with Python\'s cryptography ' +
    'package under FERNET_KEY; the one that carries the key itself is made here by the Fernet spec.';
  assert.ok(_note);
  await hub.json('/secrets', { method: 'POST', json: { 'fernet-key': FERNET_KEY, passphrase: PASSPHRASE } });
  // The one entity that pauses keeps the run long enough to see it in a worker.
  const entities = [
    { _id: 'a', token: TOKEN_HELLO, text: 'first' },
    { _id: 'b', token: TOKEN_HELLO, text: 'second', pause: true },
    { _id: 'c', token: 'not a token', text: 'third' },
  ];
  const rules = [
    ['copy', '_id'],
    ['add', 'hello', ['decrypt', '$SECRET(fernet-key)', '_S.token']],
    ['add', 'other-key', ['decrypt', '$SECRET(passphrase)', '_S.token']],
    ['add', 'round-trip', ['decrypt', '$SECRET(passphrase)', ['encrypt', '$SECRET(passphrase)', '_S.text']]],
    ['add', 'sealed', ['encrypt', '$SECRET(fernet-key)', '_S.text']],
    ['if', ['eq', '_S.pause', true], [['sleep!', 1], ['sleep!', 1]]],
  ];
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      { _id: 'keyed', type: 'pipe', batch_size: 2, source: { type: 'embedded', entities }, transform: { type: 'dtl', rules: { default: rules } }, pump: { mode: 'manual' } },
      // Opens what "keyed" sealed, with the same secret, on its own run: the ciphertext was made with the secret's value.
      { _id: 'opened', type: 'pipe', source: { type: 'dataset', dataset: 'keyed' }, transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'text', ['decrypt', '$SECRET(fernet-key)', '_S.sealed']]] } }, pump: { mode: 'manual' } },
    ],
  });
  await pumpOperation(hub, 'keyed', 'start');
  const seen = await waitFor('the run in a worker', async () => ((await runningInWorkers()) === 1 ? true : undefined), 10_000).catch(() => false);
  assert.equal(seen, true, 'the run of a pipe keyed by a $SECRET is in a pipe worker');
  await waitFor('the run to end', async () => ((await hub.json<Json>('/pipes/keyed/pump'))['is-running'] ? undefined : true), 30_000);
  const run = (await hub.json<{ 'last-run': { status: string; processed: number; reason_why_stopped: string | null } }>('/pipes/keyed/pump'))['last-run'];
  assert.equal(run.status, 'completed', run.reason_why_stopped ?? '');
  assert.equal(run.processed, 3);

  const out = new Map((await hub.json<Json[]>('/datasets/keyed/entities')).map((e) => [e['_id'] as string, e]));
  assert.equal(out.get('a')!['hello'], 'hello wörld');
  assert.equal(out.get('b')!['hello'], 'hello wörld');
  assert.equal(out.get('c')!['hello'], null, 'not a token: nothing');
  assert.equal(out.get('a')!['other-key'], null, 'a token made with another key gives nothing');
  assert.deepEqual([...out.values()].map((e) => e['round-trip']), ['first', 'second', 'third']);
  assert.ok([...out.values()].every((e) => typeof e['sealed'] === 'string' && (e['sealed'] as string).startsWith('~b')), 'encrypt gives bytes');

  assert.equal((await runPump<{ status: string }>(hub, 'opened', 'start', 30_000)).status, 'completed');
  const opened = await hub.json<Json[]>('/datasets/opened/entities');
  assert.deepEqual(opened.map((e) => [e['_id'], e['text']]), [['a', 'first'], ['b', 'second'], ['c', 'third']]);

  const answers = await answersAbout(['keyed', 'opened']);
  assert.ok(answers.includes('hello wörld'), 'the answers were read');
  for (const v of [FERNET_KEY, PASSPHRASE]) assert.ok(!answers.includes(v), 'no answer holds a secret value');
  assert.ok(!hub.output().includes(FERNET_KEY) && !hub.output().includes(PASSPHRASE), 'nor the hub\'s log');
});

test('a merge pipe keyed by a $SECRET: the hub reads the merge, the worker decrypts with the secret', async () => {
  const _note =
    'datanav/docs hub/documentation/service-configuration/pipes/configuration-sources-merge.rst: a1 and b1 share f1 and ' +
    'merge into one entity "0|a1|1|b1" with both tokens in a list; a2 stays alone as "0|a2". hub/dtl/dtl-functions-misc.rst: ' +
    'decrypt of a list decrypts each token (TOKEN_HELLO under FERNET_KEY gives "hello wörld").';
  assert.ok(_note);
  await hub.json('/datasets/tok-a/entities', { method: 'POST', json: [{ _id: 'a1', f1: 1, token: TOKEN_HELLO }, { _id: 'a2', f1: 2, token: TOKEN_HELLO, pause: true }] });
  await hub.json('/datasets/tok-b/entities', { method: 'POST', json: [{ _id: 'b1', f1: 1, token: TOKEN_HELLO }] });
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'keyed-merge',
        type: 'pipe',
        source: { type: 'merge', version: 2, datasets: ['tok-a a', 'tok-b b'], equality: [['eq', 'a.f1', 'b.f1']] },
        transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'plain', ['decrypt', '$SECRET(fernet-key)', '_S.token']], ['if', ['eq', '_S.pause', true], [['sleep!', 1], ['sleep!', 1]]]] } },
        pump: { mode: 'manual' },
      },
    ],
  });
  await pumpOperation(hub, 'keyed-merge', 'start');
  const seen = await waitFor('the transform in a worker', async () => ((await runningInWorkers()) === 1 ? true : undefined), 10_000).catch(() => false);
  assert.equal(seen, true, 'the transform of a merge pipe keyed by a $SECRET is in a pipe worker');
  await waitFor('the run to end', async () => ((await hub.json<Json>('/pipes/keyed-merge/pump'))['is-running'] ? undefined : true), 30_000);
  const run = (await hub.json<{ 'last-run': { status: string; reason_why_stopped: string | null } }>('/pipes/keyed-merge/pump'))['last-run'];
  assert.equal(run.status, 'completed', run.reason_why_stopped ?? '');
  const out = await hub.json<Json[]>('/datasets/keyed-merge/entities');
  assert.deepEqual(
    out.map((e) => [e['_id'], e['plain']]).sort(),
    [['0|a1|1|b1', ['hello wörld', 'hello wörld']], ['0|a2', 'hello wörld']],
  );
  const answers = await answersAbout(['keyed-merge']);
  for (const v of [FERNET_KEY, PASSPHRASE]) assert.ok(!answers.includes(v), 'no answer holds a secret value');
});

test('a transform in a worker that fails with a secret value in its message: the reason shows it masked', async () => {
  // The token holds the key itself: decrypting it with that key gives the secret's value, which fail! makes the
  // failure's message. The worker sends that failure back; what is stored and answered has the value masked.
  const leak = fernetToken(FERNET_KEY, FERNET_KEY);
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'keyed-fail',
        type: 'pipe',
        source: { type: 'embedded', entities: [{ _id: 'x', token: leak }] },
        transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['fail!', ['decrypt', '$SECRET(fernet-key)', '_S.token']]] } },
        pump: { mode: 'manual' },
      },
    ],
  });
  const run = await runPump<{ status: string; reason_why_stopped: string | null }>(hub, 'keyed-fail', 'start', 30_000);
  assert.equal(run.status, 'failed');
  assert.ok((run.reason_why_stopped ?? '').includes('********'), `the value is masked in the reason: ${run.reason_why_stopped}`);
  const answers = await answersAbout(['keyed-fail']);
  assert.ok(answers.includes('********'), 'the failure was read');
  for (const v of [FERNET_KEY, PASSPHRASE]) assert.ok(!answers.includes(v), 'no answer holds a secret value');
  assert.ok(!hub.output().includes(FERNET_KEY), 'nor the hub\'s log');
});

test('a secret changed while a run uses its old value: a failure quoting the old value is masked all the same', async () => {
  // The job was handed the value when it started; the hub's own mask knows only the values stored now. What the
  // worker sends back is masked with the values the job was handed.
  // A Fernet key (URL-safe base64 of 32 bytes) other than FERNET_KEY.
  const old = Buffer.from(Array.from({ length: 32 }, (_, i) => 100 + i)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
  await hub.json('/secrets', { method: 'POST', json: { rotating: old } });
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'keyed-rotate',
        type: 'pipe',
        source: { type: 'embedded', entities: [{ _id: 'x', token: fernetToken(old, old) }] },
        transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['sleep!', 1], ['sleep!', 1], ['sleep!', 1], ['fail!', ['decrypt', '$SECRET(rotating)', '_S.token']]] } },
        pump: { mode: 'manual' },
      },
    ],
  });
  await pumpOperation(hub, 'keyed-rotate', 'start');
  await waitFor('the run in a worker', async () => ((await runningInWorkers()) === 1 ? true : undefined), 10_000);
  await hub.json('/secrets', { method: 'POST', json: { rotating: 'a-new-value-for-the-rotated-secret' } });
  await waitFor('the run to end', async () => ((await hub.json<Json>('/pipes/keyed-rotate/pump'))['is-running'] ? undefined : true), 30_000);
  const run = (await hub.json<{ 'last-run': { status: string; reason_why_stopped: string | null } }>('/pipes/keyed-rotate/pump'))['last-run'];
  assert.equal(run.status, 'failed');
  assert.ok((run.reason_why_stopped ?? '').includes('********'), `the old value is masked in the reason: ${run.reason_why_stopped}`);
  const answers = await answersAbout(['keyed-rotate']);
  assert.ok(!answers.includes(old), 'no answer holds the old value');
  assert.ok(!hub.output().includes(old), 'nor the hub\'s log');
});

test('a runaway pipe keyed by a $SECRET: /api/health answers while it runs, and stop ends it within seconds', async (t) => {
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      {
        _id: 'keyed-spin',
        type: 'pipe',
        source: { type: 'embedded', entities: Array.from({ length: 5 }, (_, i) => ({ _id: `e${i}` })) },
        transform: { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'sealed', ['encrypt', '$SECRET(passphrase)', '_S._id']], SPIN] } },
        pump: { mode: 'manual' },
      },
    ],
  });
  // Six seconds of the runaway entity with /api/health polled every 50 ms (on the hub's thread, a poll waits for it).
  const polls: number[] = [];
  const busy = await whileHealthPolled(hub, async () => {
    await pumpOperation(hub, 'keyed-spin', 'start');
    const until = performance.now() + 6000;
    while (performance.now() < until) {
      const t0 = performance.now();
      await hub.fetch('/health');
      polls.push(performance.now() - t0);
      await sleep(50);
    }
  });
  polls.sort((a, b) => a - b);
  const p99 = polls[Math.min(polls.length - 1, Math.floor(polls.length * 0.99))]!;
  t.diagnostic(`during the runaway run: ${polls.length} polls, p99 ${p99.toFixed(0)} ms, slowest ${busy.slowest.toFixed(0)} ms`);
  assert.ok(busy.slowest < 1000, `the hub answered /api/health throughout (slowest ${busy.slowest.toFixed(0)} ms)`);
  await pumpOperation(hub, 'keyed-spin', 'stop');
  await waitFor('the run to end', async () => ((await hub.json<Json>('/pipes/keyed-spin/pump'))['is-running'] ? undefined : true), 30_000);

  await stopRunawayInWorker(hub, 'keyed-spin', t, 'the run of a pipe keyed by a $SECRET is in a worker');
  const answers = await answersAbout(['keyed-spin']);
  assert.ok(answers.includes('stopped'), 'the runs were read');
  for (const v of [FERNET_KEY, PASSPHRASE]) assert.ok(!answers.includes(v), 'no answer holds a secret value');
  assert.ok(!hub.output().includes(PASSPHRASE), 'nor the hub\'s log');
  assertNotStored(hub.dataDir, [FERNET_KEY, PASSPHRASE]);
});

describe('on the hub\'s thread (one pipe worker)', () => {
  const one = useHub({ env: { DATAHUB_PIPE_WORKERS: '1' } });

  test('a secret changed during a run: a failure quoting the value the transform was compiled with is masked', async () => {
    // The API answers between entities (a turn of the event loop each): the change lands while the run is still in its
    // pausing entities; the last one fails with the value the run was compiled with, which the hub's mask no longer
    // knows once the secret has changed.
    const old = Buffer.from(Array.from({ length: 32 }, (_, i) => 150 + i)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    await one.json('/secrets', { method: 'POST', json: { rotating: old } });
    const pause = ['if', ['eq', '_S.pause', true], ['sleep!', 1]];
    const pausing = Array.from({ length: 10 }, (_, i) => ({ _id: `p${i}`, pause: true }));
    await one.json('/pipes', {
      method: 'POST',
      json: [
        {
          _id: 'rotate-here',
          type: 'pipe',
          source: { type: 'embedded', entities: [...pausing, { _id: 'z', token: fernetToken(old, old) }] },
          transform: { type: 'dtl', rules: { default: [['copy', '_id'], pause, ['if', ['is-not-null', '_S.token'], ['fail!', ['decrypt', '$SECRET(rotating)', '_S.token']]]] } },
          pump: { mode: 'manual' },
        },
      ],
    });
    await pumpOperation(one, 'rotate-here', 'start');
    await waitFor('the run to start', async () => ((await one.json<Json>('/pipes/rotate-here/pump'))['is-running'] ? true : undefined), 10_000);
    await one.json('/secrets', { method: 'POST', json: { rotating: 'a-new-value-for-the-rotated-secret' } });
    assert.equal((await one.json<Json>('/pipes/rotate-here/pump'))['is-running'], true, 'the secret changed while the run was still running');
    await waitFor('the run to end', async () => ((await one.json<Json>('/pipes/rotate-here/pump'))['is-running'] ? undefined : true), 30_000);
    const run = (await one.json<{ 'last-run': { status: string; reason_why_stopped: string | null } }>('/pipes/rotate-here/pump'))['last-run'];
    assert.equal(run.status, 'failed');
    assert.ok((run.reason_why_stopped ?? '').includes('********'), `the old value is masked in the reason: ${run.reason_why_stopped}`);
    const log = await one.fetch(`/datasets/${encodeURIComponent('system:pump_execution:rotate-here')}/entities`);
    const text = `${JSON.stringify(await one.json('/pipes/rotate-here/pump'))}${await log.text()}${one.output()}`;
    assert.ok(text.includes('********') && !text.includes(old), 'neither the pump, its execution log nor the hub\'s log holds the old value');
  });
});
