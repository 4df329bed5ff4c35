// A test group's hub holds only what the group needs (issue 35.5): loadProject with `pipes` loads those pipes, the
// systems they name and the node metadata, while every file is still read and its problems still refuse the project.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadProject } from '../../../hub-core/project/index.js';
import { removeDir, tempDir } from '../../helpers/hub-process.js';

const dirs: string[] = [];
after(() => dirs.forEach(removeDir));

function project(files: Record<string, unknown>): string {
  const dir = tempDir('datahub-load-only-');
  dirs.push(dir);
  for (const [file, value] of Object.entries(files)) {
    mkdirSync(join(dir, 'node', file, '..'), { recursive: true });
    writeFileSync(join(dir, 'node', file), typeof value === 'string' ? value : `${JSON.stringify(value, null, 2)}\n`);
  }
  return dir;
}

const files = {
  'node-metadata.conf.json': { _id: 'node', type: 'metadata', global_defaults: { use_signalling_internally: false } },
  'systems/crm.conf.json': { _id: 'crm', type: 'system:url', url_pattern: 'http://127.0.0.1:1/%s' },
  'systems/erp.conf.json': { _id: 'erp', type: 'system:url', url_pattern: 'http://127.0.0.1:1/%s' },
  'pipes/a-seed.conf.json': { _id: 'a-seed', type: 'pipe', source: { type: 'embedded', entities: [{ _id: '1' }] } },
  'pipes/a-out.conf.json': { _id: 'a-out', type: 'pipe', source: { type: 'dataset', dataset: 'a-seed' }, sink: { type: 'rest', system: 'crm', operation: 'post' } },
  'pipes/b-seed.conf.json': { _id: 'b-seed', type: 'pipe', source: { type: 'json', system: 'erp', url: 'x' } },
};

test('only the given pipes, the systems they name and the metadata are loaded', () => {
  const loaded = loadProject(project(files), { pipes: new Set(['a-seed', 'a-out']) });
  try {
    assert.deepEqual(loaded.hub.pipes.ids().sort(), ['a-out', 'a-seed']);
    assert.deepEqual(loaded.hub.config.list('system').map((s) => s._id), ['crm']);
    assert.equal(loaded.hub.config.list('metadata').length, 1);
    // More pipes later (the worker's next group): added, the others kept.
    loaded.workspace.load({ pipes: new Set(['a-seed', 'a-out', 'b-seed']) });
    assert.deepEqual(loaded.hub.pipes.ids().sort(), ['a-out', 'a-seed', 'b-seed']);
    assert.deepEqual(loaded.hub.config.list('system').map((s) => s._id).sort(), ['crm', 'erp']);
  } finally {
    loaded.close();
  }
});

test('a broken file elsewhere in the project still refuses it', () => {
  const dir = project({ ...files, 'pipes/broken.conf.json': '{ "_id": "broken", ' });
  assert.throws(() => loadProject(dir, { pipes: new Set(['a-seed']) }).close(), /cannot be loaded/);
});
