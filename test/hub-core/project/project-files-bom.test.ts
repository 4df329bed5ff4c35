// Project files that start with a UTF-8 byte order mark (Windows editors write one; the service's own client reads
// them, as Python's utf-8-sig does) load, run and test like any other, and the workspace keeps the mark on write-back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, REPO, removeDir, tempDir } from '../../helpers/hub-process.js';

const BOM = '\uFEFF';

function writeWithBom(path: string, value: unknown): void {
  writeFileSync(path, BOM + JSON.stringify(value, null, 2) + '\n');
}

test('every JSON file of a project may start with a byte order mark', () => {
  const dir = tempDir('datahub-bom-');
  try {
    const node = join(dir, 'node');
    for (const sub of ['pipes', 'systems', 'expected']) mkdirSync(join(node, sub), { recursive: true });
    writeWithBom(join(node, 'node-metadata.conf.json'), { _id: 'node', type: 'metadata' });
    writeWithBom(join(node, 'test-env.json'), { greeting: 'hello' });
    writeWithBom(join(node, 'systems', 'unused.conf.json'), { _id: 'unused', type: 'system:url', base_url: 'http://127.0.0.1:9/' });
    writeWithBom(join(node, 'pipes', 'greet.conf.json'), {
      _id: 'greet',
      type: 'pipe',
      source: { type: 'embedded', entities: [{ _id: 'a', name: 'Ann' }] },
      transform: { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'text', ['concat', '$ENV(greeting)', ' ', '_S.name']]] } },
    });
    writeWithBom(join(node, 'expected', 'greet.test.json'), { blacklist: ['name'] });
    writeWithBom(join(node, 'expected', 'greet.json'), [{ _id: 'a', text: 'hello Ann' }]);
    const r = spawnSync(process.execPath, [CLI, 'test', dir, '--json'], { cwd: REPO, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const report = JSON.parse(r.stdout) as { passed: number; failed: number; pipes: { pipe: string; status: string }[] };
    assert.equal(report.passed, 1);
    assert.equal(report.failed, 0);
    assert.deepEqual(report.pipes.map((p) => [p.pipe, p.status]), [['greet', 'ok']]);
  } finally {
    removeDir(dir);
  }
});

test('a workspace edit written back to a file that starts with a byte order mark keeps the mark', async () => {
  const { Workspace } = await import('../../../hub-core/project/index.js');
  const { Hub } = await import('../../../hub-core/hub.js');
  const dir = tempDir('datahub-bom-ws-');
  const data = tempDir('datahub-bom-data-');
  try {
    mkdirSync(join(dir, 'node', 'pipes'), { recursive: true });
    const file = join(dir, 'node', 'pipes', 'p.conf.json');
    writeWithBom(file, { _id: 'p', type: 'pipe', source: { type: 'embedded', entities: [] } });
    const hub = new Hub(data);
    const ws = new Workspace(hub, dir);
    try {
      ws.open({ watch: false });
      assert.ok(hub.config.get('pipe', 'p'), 'the pipe loads from a file with a BOM');
      hub.config.put({ _id: 'p', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'x' }] } });
      const text = readFileSync(file, 'utf8');
      assert.ok(text.startsWith(BOM), 'the mark is kept');
      assert.deepEqual((JSON.parse(text.slice(1)) as { source: { entities: unknown[] } }).source.entities, [{ _id: 'x' }]);
    } finally {
      ws.close();
      hub.close();
    }
  } finally {
    removeDir(dir);
    removeDir(data);
  }
});
