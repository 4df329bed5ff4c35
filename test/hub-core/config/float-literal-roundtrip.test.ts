// A float literal with a zero fraction in a transform (`1.0`) is DTL's float, and it survives every path that handles
// the configuration: the workspace file read, an edit through the API written back to the file, the pipe's output,
// a traced preview. Written as text: JSON.stringify cannot write `1.0`.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, startHub, tempDir, type HubProcess } from '../../helpers/hub-process.js';

const pipeText = (dataset: string): string => `{
  "_id": "floats",
  "type": "pipe",
  "source": {
    "type": "embedded",
    "entities": [{"_id": "a", "n": 2}]
  },
  "transform": {
    "type": "dtl",
    "rules": {
      "default": [
        ["copy", "_id"],
        ["add", "literal-is-float", ["is-float", 1.0]],
        ["add", "int-is-float", ["is-float", 1]],
        ["add", "scaled", ["multiply", 1.0, "_S.n"]]
      ]
    }
  },
  "sink": {
    "type": "dataset",
    "dataset": "${dataset}"
  }
}
`;

describe('a float literal written 1.0 in a transform', () => {
  let hub: HubProcess;
  let project: string;
  let file: string;

  before(async () => {
    project = tempDir('datahub-float-');
    const pipes = join(project, 'node', 'pipes');
    mkdirSync(pipes, { recursive: true });
    file = join(pipes, 'floats.conf.json');
    writeFileSync(file, pipeText('floats'));
    hub = await startHub({ args: ['--workspace', project] });
  });

  after(async () => {
    await hub.stop();
    removeDir(hub.dataDir);
    removeDir(project);
  });

  test('is a float in the pipe output read from the workspace file', async () => {
    const out = await hub.json<Record<string, unknown>[]>('/pipes/floats/entities?stage=sink');
    assert.equal(out.length, 1);
    assert.equal(out[0]!['literal-is-float'], true);
    assert.equal(out[0]!['int-is-float'], false);
  });

  test('an edit through the API writes the file back with 1.0 as written, never as an object', async () => {
    const res = await hub.fetch('/pipes/floats/config', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: pipeText('floats-v2') });
    assert.equal(res.status, 200, await res.clone().text());
    const written = readFileSync(file, 'utf8');
    assert.match(written, /floats-v2/);
    assert.match(written, /\["is-float", 1\.0\]/);
    assert.doesNotMatch(written, /rawJSON/);
    const config = await (await hub.fetch('/pipes/floats/config')).text();
    assert.match(config, /1\.0/);
    assert.doesNotMatch(config, /rawJSON/);
    const out = await hub.json<Record<string, unknown>[]>('/pipes/floats/entities?stage=sink');
    assert.equal(out[0]!['literal-is-float'], true);
  });

  test('a traced preview of the pipe runs and records the literal as a float', async () => {
    const res = await hub.fetch('/pipes/floats/preview', { method: 'POST', json: { trace: true } });
    assert.equal(res.status, 200, await res.clone().text());
    const body = (await res.json()) as { results: { sink: Record<string, unknown>[]; trace?: unknown }[] };
    assert.equal(body.results[0]!.sink[0]!['literal-is-float'], true);
    assert.ok(body.results[0]!.trace !== undefined, 'the preview answered a trace');
  });
});
