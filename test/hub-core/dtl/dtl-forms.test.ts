// Real projects' configuration runs unchanged (issue 13, points 1, 4 and 6), against the real hub over HTTP:
//   - $ENV resolved where and when the service resolves it: checks see the replaced values, conditional sources and
//     transforms build only the alternative they pick, a DTL branch not taken never needs its variables, and pump
//     settings only concern the schedule;
//   - every transform form: a chain, conditional transforms, emit_children, a rule set written as one transform;
//     transforms that call outside services fail a run in words;
//   - configuration the service accepts: `indexes: "$ids"`, the mail sink, ["remove", "_*"].
// Expected outputs are worked out by hand from the documentation's rules.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHub } from '../../helpers/hub-process.js';
import { expectError, pipePath, runPump } from '../../helpers/api.js';

type Json = Record<string, unknown>;

interface ConfigError {
  elements: string;
  level: string;
  msg: string;
}

interface PipeInfo {
  runtime: { 'is-valid-config': boolean; 'config-errors': ConfigError[]; 'is-disabled': boolean };
}

interface LastRun {
  status: string;
  processed: number;
  reason_why_stopped: string | null;
}

const hub = useHub();

async function createPipe(config: Json): Promise<void> {
  await hub.json('/pipes', { method: 'POST', json: [{ type: 'pipe', ...config }] });
}

const setEnv = (vars: Record<string, string>): Promise<unknown> => hub.json('/env', { method: 'POST', json: vars });
const info = (id: string): Promise<PipeInfo> => hub.json<PipeInfo>(pipePath(id));
const run = (id: string): Promise<LastRun> => runPump<LastRun>(hub, id);

/** The latest entities of a dataset, internal properties other than _id and _deleted dropped, by _id. */
async function output(dataset: string): Promise<Json[]> {
  const list = await hub.json<Json[]>(`/datasets/${encodeURIComponent(dataset)}/entities?history=false`);
  return list
    .map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !k.startsWith('_') || k === '_id' || (k === '_deleted' && e[k] === true))))
    .sort((a, b) => String(a['_id']).localeCompare(String(b['_id'])));
}

const errorsOf = (i: PipeInfo): ConfigError[] => i.runtime['config-errors'].filter((e) => e.level === 'error');

const embedded = (entities: Json[]): Json => ({ type: 'embedded', entities });

describe('variables are resolved where and when the service resolves them', () => {
  test('"mode": "$ENV(pump-mode)" is checked as the mode it names', async () => {
    await setEnv({ 'pump-mode': 'manual' });
    // Accepted without force: the check sees "manual".
    await createPipe({ _id: 'env-mode', source: embedded([{ _id: 'a' }]), pump: { mode: '$ENV(pump-mode)' } });
    const i = await info('env-mode');
    assert.equal(i.runtime['is-valid-config'], true, JSON.stringify(i.runtime['config-errors']));
    // A manual pump is not run by the schedule.
    assert.equal(i.runtime['is-disabled'], true);
    const pump = await hub.json<{ schedule: { mode: string } }>(`${pipePath('env-mode')}/pump`);
    assert.equal(pump.schedule.mode, 'manual');
  });

  test('an unset pump variable is a schedule error while the scheduler runs, a warning while it is off, and never stops reading', async () => {
    await createPipe({ _id: 'env-cron', source: embedded([{ _id: 'a', n: 1 }]), pump: { cron_expression: '$ENV(nightly-cron)' } });
    const on = await info('env-cron');
    assert.deepEqual(
      errorsOf(on).map((e) => e.elements),
      ['$.pump.cron_expression'],
    );
    assert.match(errorsOf(on)[0]?.msg ?? '', /\$ENV\(nightly-cron\), which is not set/);
    // Reading the pipe's entities and running it by hand do not need the schedule.
    const source = await hub.json<Json[]>(`${pipePath('env-cron')}/entities?stage=source`);
    assert.deepEqual(source.map((e) => e['_id']), ['a']);
    const last = await run('env-cron');
    assert.equal(last.status, 'completed', last.reason_why_stopped ?? '');
    assert.deepEqual(await output('env-cron'), [{ _id: 'a', n: 1 }]);
    // With the scheduler switched off in the node metadata the same reference is a warning.
    await hub.json('/metadata', { method: 'PUT', json: { _id: 'node', type: 'metadata', task_manager: { disable_pump_scheduler: true } } });
    try {
      const off = await info('env-cron');
      assert.equal(off.runtime['is-valid-config'], true);
      assert.deepEqual(
        off.runtime['config-errors'].filter((e) => e.elements === '$.pump.cron_expression').map((e) => e.level),
        ['warning'],
      );
    } finally {
      await hub.json('/metadata', { method: 'PUT', json: { _id: 'node', type: 'metadata' } });
    }
  });

  test('a DTL branch that is not taken never needs its variables; the branch taken fails in words', async () => {
    await setEnv({ 'node-env': 'test' });
    const rules = {
      default: [
        ['copy', '_id'],
        ['if', ['eq', '$ENV(node-env)', 'prod'], [['add', 'password', '$ENV(prod-password)']], [['add', 'env', '$ENV(node-env)']]],
      ],
    };
    await createPipe({ _id: 'env-branch', source: embedded([{ _id: 'x' }]), transform: { type: 'dtl', rules } });
    assert.equal((await info('env-branch')).runtime['is-valid-config'], true);
    const ok = await run('env-branch');
    assert.equal(ok.status, 'completed', ok.reason_why_stopped ?? '');
    assert.deepEqual(await output('env-branch'), [{ _id: 'x', env: 'test' }]);
    // In production the branch is taken and the variable is needed.
    await setEnv({ 'node-env': 'prod' });
    try {
      const failed = await run('env-branch');
      assert.equal(failed.status, 'failed');
      assert.match(failed.reason_why_stopped ?? '', /\$ENV\(prod-password\) is not set/);
    } finally {
      await setEnv({ 'node-env': 'test' });
    }
  });

  test('a conditional source builds only the alternative it picks', async () => {
    await createPipe({
      _id: 'env-cond-source',
      source: {
        type: 'conditional',
        condition: '$ENV(node-env)',
        alternatives: {
          // Never built in a test environment: neither its variable nor its secret exists here.
          prod: { type: 'json', system: 'crm', url: '$ENV(crm-url)/people', headers: { Authorization: '$SECRET(crm-token)' } },
          test: { type: 'embedded', entities: [{ _id: 'p1', name: 'Ada' }] },
        },
      },
    });
    const i = await info('env-cond-source');
    assert.deepEqual(errorsOf(i), []);
    const last = await run('env-cond-source');
    assert.equal(last.status, 'completed', last.reason_why_stopped ?? '');
    assert.deepEqual(await output('env-cond-source'), [{ _id: 'p1', name: 'Ada' }]);
  });
});

describe('every transform form', () => {
  test('a list of transforms is a chain: each one reads what the one before gave', async () => {
    await createPipe({
      _id: 'chain',
      source: embedded([{ _id: 'a', n: 2 }]),
      transform: [
        { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'double', ['*', '_S.n', 2]]] } },
        { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'quadruple', ['*', '_S.double', 2]]] } },
      ],
    });
    const last = await run('chain');
    assert.equal(last.status, 'completed', last.reason_why_stopped ?? '');
    assert.deepEqual(await output('chain'), [{ _id: 'a', quadruple: 8 }]);
  });

  test('a conditional transform runs the alternative its condition names; the others may call outside services', async () => {
    await setEnv({ 'node-env': 'test' });
    await createPipe({
      _id: 'cond-transform',
      source: embedded([{ _id: 'a', name: 'ada' }]),
      transform: {
        type: 'conditional',
        condition: '$ENV(node-env)',
        alternatives: {
          prod: { type: 'rest', system: 'crm', operation: 'lookup', url: '$ENV(crm-url)' },
          test: [{ type: 'dtl', rules: { default: [['copy', '*'], ['add', 'name', ['upper', '_S.name']]] } }],
        },
      },
    });
    assert.deepEqual(errorsOf(await info('cond-transform')), []);
    const last = await run('cond-transform');
    assert.equal(last.status, 'completed', last.reason_why_stopped ?? '');
    assert.deepEqual(await output('cond-transform'), [{ _id: 'a', name: 'ADA' }]);
  });

  test('emit_children outputs the $children that have an _id, never the parent', async () => {
    await createPipe({
      _id: 'children',
      source: embedded([
        { _id: 'order-1', $children: [{ _id: 'line-1', qty: 2 }, { _id: 'line-2', qty: 5 }, { qty: 9 }] },
        { _id: 'order-2', total: 0 },
      ]),
      transform: { type: 'emit_children' },
    });
    const last = await run('children');
    assert.equal(last.status, 'completed', last.reason_why_stopped ?? '');
    assert.deepEqual(await output('children'), [
      { _id: 'line-1', qty: 2 },
      { _id: 'line-2', qty: 5 },
    ]);
  });

  test('create-child then emit_children in the next pipe gives the children as entities', async () => {
    await createPipe({
      _id: 'with-children',
      source: embedded([{ _id: 'o1', lines: [{ sku: 'A' }, { sku: 'B' }] }]),
      transform: {
        type: 'dtl',
        rules: {
          default: [['copy', '_id'], ['create-child', ['apply', 'line', '_S.lines']]],
          line: [['add', '_id', ['concat', '_P._S._id', '-', '_S.sku']], ['add', 'sku', '_S.sku']],
        },
      },
    });
    assert.equal((await run('with-children')).status, 'completed');
    await createPipe({ _id: 'lines', source: { type: 'dataset', dataset: 'with-children' }, transform: { type: 'emit_children' } });
    const last = await run('lines');
    assert.equal(last.status, 'completed', last.reason_why_stopped ?? '');
    assert.deepEqual(await output('lines'), [
      { _id: 'o1-A', sku: 'A' },
      { _id: 'o1-B', sku: 'B' },
    ]);
  });

  test('a rule set may be written as one transform instead of a list', async () => {
    await createPipe({ _id: 'single-rule', source: embedded([{ _id: 'a', x: 1 }]), transform: { type: 'dtl', rules: { default: ['copy', '*'] } } });
    assert.deepEqual(errorsOf(await info('single-rule')), []);
    assert.equal((await run('single-rule')).status, 'completed');
    assert.deepEqual(await output('single-rule'), [{ _id: 'a', x: 1 }]);
  });

  test('a transform that calls an outside service is accepted, and a run of it is offline in words without harming the hub', async () => {
    await createPipe({
      _id: 'calls-out',
      source: embedded([{ _id: 'a' }]),
      transform: [{ type: 'dtl', rules: { default: [['copy', '*']] } }, { type: 'http', system: 'geo', url: 'https://geo.example.com/lookup' }],
    });
    const i = await info('calls-out');
    assert.equal(i.runtime['is-valid-config'], true);
    assert.ok(i.runtime['config-errors'].some((e) => e.level === 'warning' && /outside service/.test(e.msg)));
    // Offline, not failed: the run ends where the outside call would be, writes nothing, and says why.
    const last = (await run('calls-out')) as LastRun & { offline?: boolean; offline_reason?: string };
    assert.equal(last.status, 'completed', last.reason_why_stopped ?? '');
    assert.equal(last.offline, true);
    assert.match(last.offline_reason ?? '', /the http transform calls an outside service \(system "geo"\); this hub runs offline/);
    assert.deepEqual(await output('calls-out'), []);
    // The hub goes on: another pipe still runs.
    assert.equal((await run('chain')).status, 'completed');
  });
});

describe('configuration the service accepts', () => {
  test('indexes: "$ids" on a dataset sink maintains an index on $ids', async () => {
    await createPipe({ _id: 'ids-indexed', source: embedded([{ _id: 'a' }]), sink: { type: 'dataset', indexes: '$ids' } });
    assert.deepEqual(errorsOf(await info('ids-indexed')), []);
    assert.equal((await run('ids-indexed')).status, 'completed');
    const indexes = await hub.json<{ expression: string }[]>('/datasets/ids-indexed/indexes');
    assert.deepEqual(
      indexes.map((x) => x.expression),
      ['_S.$ids'],
    );
  });

  test('any other string for indexes is refused with the reason', async () => {
    const res = await hub.fetch('/pipes', { method: 'POST', json: [{ _id: 'bad-indexes', type: 'pipe', source: embedded([]), sink: { indexes: 'name' } }] });
    const body = await expectError(res, 400, 'indexes: "name"');
    assert.match(String(body.detail), /\$\.sink\.indexes: "indexes" must be "\$ids" or an array/);
  });

  test('the mail sink of the documentation is valid configuration', async () => {
    await createPipe({
      _id: 'mailer',
      source: embedded([{ _id: 'message_id', message_prop_id: 'This is the message to send', subject_prop_id: 'The subject' }]),
      sink: {
        type: 'mail',
        system: 'our-smtp-server',
        body_template: 'Mail message body: {{ message_prop_id }}',
        subject_template: 'Subject: {{ subject_prop_id }}',
        recipients: 'foo@bar.com,info@example.com',
        mail_from: 'all@of.us',
      },
    });
    assert.deepEqual(errorsOf(await info('mailer')), []);
    // At most one of a template and its property.
    const res = await hub.fetch('/pipes', {
      method: 'POST',
      json: [{ _id: 'mailer-2', type: 'pipe', source: embedded([]), sink: { type: 'mail', system: 's', body_template: 'x', body_template_property: 'body' } }],
    });
    const body = await expectError(res, 400, 'a body template twice');
    assert.match(String(body.detail), /\$\.sink\.body_template_property: give at most one of "body_template" and "body_template_property"/);
  });

  test('["remove", "_*"] removes the internal properties but keeps _id', async () => {
    await createPipe({
      _id: 'remove-internal',
      source: embedded([{ _id: 'a', _hidden: 1, keep: 2 }]),
      transform: { type: 'dtl', rules: { default: [['copy', '*'], ['remove', '_*']] } },
    });
    assert.equal((await run('remove-internal')).status, 'completed');
    const [e] = await hub.json<Json[]>('/datasets/remove-internal/entities?history=false');
    assert.equal(e?.['_id'], 'a');
    assert.equal(e?.['keep'], 2);
    assert.equal(Object.hasOwn(e ?? {}, '_hidden'), false);
  });
});

describe('a float literal with a zero fraction stays a float', () => {
  test('["is-float", 1.0] is true in a pipe posted as JSON text; the configuration keeps 1.0; pump numbers stay numbers', async () => {
    const text = `[{"_id": "floats", "type": "pipe", "source": {"type": "embedded", "entities": [{"_id": "a"}]},
      "pump": {"schedule_interval": 30.0, "mode": "manual"},
      "transform": {"type": "dtl", "rules": {"default": [
        ["copy", "_id"],
        ["add", "float_literal", ["is-float", 1.0]],
        ["add", "integer_literal", ["is-float", 1]],
        ["add", "float_first", ["is-float", ["list", 1.0, "12345"]]],
        ["add", "string_first", ["is-float", ["list", "1.0", 2.0]]],
        ["add", "decimal_of_float", ["is-decimal", 1.0]],
        ["add", "sum", ["plus", 1.0, 2]]
      ]}}}]`;
    const res = await hub.fetch('/pipes', { method: 'POST', body: text, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 200, await res.text());
    const i = await info('floats');
    assert.deepEqual(errorsOf(i), []);
    // The stored configuration gives the literal back as written.
    const config = await (await hub.fetch(`${pipePath('floats')}/config`)).text();
    assert.match(config, /\["is-float",\s*1\.0\]/);
    assert.match(config, /"schedule_interval":\s*30[,}]/);
    const last = await run('floats');
    assert.equal(last.status, 'completed', last.reason_why_stopped ?? '');
    // Expected from dtl-functions-numbers.rst: is-float of 1.0 true, of 1 false, of a list whose first value is 1.0
    // true, of a list whose first value is the string "1.0" false; is-decimal of 1.0 false (a float literal).
    assert.deepEqual(await output('floats'), [
      { _id: 'a', float_literal: true, integer_literal: false, float_first: true, string_first: false, decimal_of_float: false, sum: 3 },
    ]);
  });
});
