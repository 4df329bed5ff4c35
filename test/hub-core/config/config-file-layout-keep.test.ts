// The user's file layout survives the workbench's file operations (issue 17.1 and 17.10): Format lays a text out as
// `sesam format` does (POST /desktop/config-format), a renamed pipe's new file keeps the old file's layout, and the
// export zip holds the workspace's files byte for byte. Expected texts are worked out by hand from the layout rules.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { expectError, waitFor } from '../../helpers/api.js';

// A pipe file in its author's own layout: four-space indent, short objects and lists on one line.
const USER_PIPE = `{
    "_id": "orders",
    "type": "pipe",
    "source": {"type": "embedded", "entities": [{"_id": "1", "total": 12}]},
    "transform": {
        "type": "dtl",
        "rules": {"default": [["copy", "*"], ["add", "label", ["concat", "order ", "_S._id"]]]}
    }
}
`;
// A system file in the layout of the service's tooling.
const SESAM_SYSTEM = `{
  "_id": "crm",
  "type": "system:url",
  "base_url": "http://crm.invalid/api"
}
`;

describe('POST /desktop/config-format', () => {
  let hub: HubProcess;
  before(async () => {
    hub = await startHub();
  });
  after(async () => {
    await hub?.stop();
    if (hub) removeDir(hub.dataDir);
  });
  const format = (text: string): Promise<Response> =>
    fetch(`${hub.url}/desktop/config-format`, { method: 'POST', headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ text }) });

  test('lays the text out as sesam format does, keeping numbers as written', async () => {
    const res = await format('{"transform": {"rules": {"default": [["add", "n", 1.0], ["copy", "*"]]}, "type": "dtl"}, "type": "pipe", "_id": "p", "zeta": [1, 2]}');
    assert.equal(res.status, 200);
    const { text } = (await res.json()) as { text: string };
    assert.equal(
      text,
      `{
  "_id": "p",
  "type": "pipe",
  "transform": {
    "type": "dtl",
    "rules": {
      "default": [
        ["add", "n", 1.0],
        ["copy", "*"]
      ]
    }
  },
  "zeta": [1, 2]
}
`,
    );
  });

  test('text that is not JSON is a 400 that says the line', async () => {
    const body = await expectError(await format('{\n  "a": 1\n  "b": 2\n}'), 400, 'not JSON');
    assert.equal(body.error, 'the text is not valid JSON');
    assert.match(String(body.detail), /^line 3: /);
  });
});

describe('a workspace in the user\'s own layout', () => {
  let hub: HubProcess;
  const dir = tempDir('datahub-layout-keep-');
  const pipes = join(dir, 'node', 'pipes');
  const systems = join(dir, 'node', 'systems');
  before(async () => {
    mkdirSync(pipes, { recursive: true });
    mkdirSync(systems, { recursive: true });
    writeFileSync(join(pipes, 'orders.conf.json'), USER_PIPE);
    writeFileSync(join(systems, 'crm.conf.json'), SESAM_SYSTEM);
    hub = await startHub({ args: ['--workspace', dir] });
  });
  after(async () => {
    await hub?.stop();
    if (hub) removeDir(hub.dataDir);
    removeDir(dir);
  });

  const zipFiles = async (): Promise<Record<string, string>> => {
    const res = await hub.fetch('/config', { headers: { accept: 'application/zip' } });
    assert.equal(res.status, 200);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    return Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strFromU8(v)]));
  };

  test('the export zip holds the workspace files byte for byte', async () => {
    const files = await zipFiles();
    assert.deepEqual(Object.keys(files).sort(), ['pipes/orders.conf.json', 'systems/crm.conf.json']);
    assert.equal(files['pipes/orders.conf.json'], USER_PIPE);
    assert.equal(files['systems/crm.conf.json'], SESAM_SYSTEM);
  });

  test('an edit changes one line of the file, and the zip holds the edited file', async () => {
    const stored = await hub.json<Record<string, unknown>>('/pipes/orders/config');
    const source = stored['source'] as Record<string, unknown>;
    await hub.json('/pipes/orders/config', { method: 'PUT', json: { ...stored, source: { ...source, entities: [{ _id: '1', total: 13 }] } } });
    const expected = USER_PIPE.replace('"total": 12', '"total": 13');
    assert.equal(readFileSync(join(pipes, 'orders.conf.json'), 'utf8'), expected);
    assert.equal((await zipFiles())['pipes/orders.conf.json'], expected);
  });

  test('a renamed pipe\'s new file keeps the old file\'s layout; the old file goes', async () => {
    // What the workbench's Rename does: store the pipe under the new id (its sink now names the dataset it wrote),
    // then delete the old one.
    const stored = await hub.json<Record<string, unknown>>('/pipes/orders/config');
    await hub.json('/pipes', { method: 'POST', json: [{ ...stored, _id: 'orders-renamed', sink: { type: 'dataset', dataset: 'orders' } }] });
    await hub.fetch('/pipes/orders', { method: 'DELETE' });
    const file = join(pipes, 'orders-renamed.conf.json');
    await waitFor('the renamed file', async () => (existsSync(file) && !existsSync(join(pipes, 'orders.conf.json')) ? true : undefined));
    // The id replaced in place; the new sink where the conventional order puts it (after transform: source, transform, sink), in the file's
    // four-space indent; the rest of the text as it was.
    assert.equal(
      readFileSync(file, 'utf8'),
      `{
    "_id": "orders-renamed",
    "type": "pipe",
    "source": {"type": "embedded", "entities": [{"_id": "1", "total": 13}]},
    "transform": {
        "type": "dtl",
        "rules": {"default": [["copy", "*"], ["add", "label", ["concat", "order ", "_S._id"]]]}
    },
    "sink": {
        "type": "dataset",
        "dataset": "orders"
    }
}
`,
    );
  });

  test('a pipe new to the folder is written in the layout of the service\'s tooling', async () => {
    await hub.json('/pipes', { method: 'POST', json: [{ _id: 'fresh', type: 'pipe', source: { type: 'embedded', entities: [] } }] });
    const file = join(pipes, 'fresh.conf.json');
    await waitFor('the new file', async () => (existsSync(file) ? true : undefined));
    assert.equal(readFileSync(file, 'utf8'), '{\n  "_id": "fresh",\n  "type": "pipe",\n  "source": {\n    "type": "embedded",\n    "entities": []\n  }\n}\n');
  });
});
