// Workspace watching and write-back (issue 16.4a, 16.4c): saves by rename (vim, "safe write" editors) and saves after
// the hub wrote a file through the API are all noticed; a file holding several components is written back whole.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeDir, startHub, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { waitFor } from '../../helpers/api.js';

type Json = Record<string, unknown>;

const pipe = (id: string, dataset = id): Json => ({ _id: id, type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset } });
const text = (value: unknown): string => JSON.stringify(value, null, 2) + '\n';

describe('workspace watching and write-back', () => {
  let hub: HubProcess;
  let project: string;
  let pipes: string;

  before(async () => {
    project = tempDir('datahub-ws-watch-');
    pipes = join(project, 'node', 'pipes');
    mkdirSync(pipes, { recursive: true });
    writeFileSync(join(pipes, 'edited.conf.json'), text(pipe('edited')));
    writeFileSync(join(pipes, 'two.conf.json'), text([pipe('first'), pipe('second')]));
    hub = await startHub({ args: ['--workspace', project] });
  });

  after(async () => {
    await hub.stop();
    removeDir(hub.dataDir);
    removeDir(project);
  });

  const sinkOf = async (id: string): Promise<string | undefined> => {
    const res = await hub.fetch(`/pipes/${id}/config`);
    if (res.status !== 200) return undefined;
    return ((await res.json()) as { sink: { dataset: string } }).sink.dataset;
  };
  const until = (id: string, dataset: string): Promise<boolean> =>
    waitFor(`${id} writing to ${dataset}`, async () => ((await sinkOf(id)) === dataset ? true : undefined));

  test('after an API write, a later save of the file is noticed', async () => {
    assert.equal((await hub.fetch('/pipes/edited/config', { method: 'PUT', json: pipe('edited', 'from-api') })).status, 200);
    assert.match(readFileSync(join(pipes, 'edited.conf.json'), 'utf8'), /from-api/);
    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(join(pipes, 'edited.conf.json'), text(pipe('edited', 'from-editor-1')));
    await until('edited', 'from-editor-1');
    writeFileSync(join(pipes, 'edited.conf.json'), text(pipe('edited', 'from-editor-2')));
    await until('edited', 'from-editor-2');
  });

  test('saves by rename (a temporary file moved over the file) are noticed, one after another', async () => {
    for (const n of [1, 2, 3]) {
      const tmp = join(pipes, `.edited.conf.json.${n}.swp`);
      writeFileSync(tmp, text(pipe('edited', `renamed-${n}`)));
      renameSync(tmp, join(pipes, 'edited.conf.json'));
      await until('edited', `renamed-${n}`);
    }
  });

  test('a file holding several components is written back whole', async () => {
    const file = join(pipes, 'two.conf.json');
    assert.equal((await hub.fetch('/pipes/second/config', { method: 'PUT', json: pipe('second', 'second-v2') })).status, 200);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), [pipe('first'), pipe('second', 'second-v2')], 'both stay, the edited one changed');

    assert.equal((await hub.fetch('/pipes/first', { method: 'DELETE' })).status, 200);
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), [pipe('second', 'second-v2')], 'the deleted one is gone from the file');
    // A reload from the files does not bring it back, and the other one is still there.
    writeFileSync(join(pipes, 'edited.conf.json'), text(pipe('edited', 'touch')));
    await until('edited', 'touch');
    assert.equal((await hub.fetch('/pipes/first')).status, 404);
    assert.equal(await sinkOf('second'), 'second-v2');
  });

  test('a folder created after the start is watched too (the periodic rescan sees what no event told)', async () => {
    const systems = join(project, 'node', 'systems');
    mkdirSync(systems);
    writeFileSync(join(systems, 'crm.conf.json'), text({ _id: 'crm', type: 'system:url', base_url: 'http://127.0.0.1:1/' }));
    await waitFor('the new system', async () => ((await hub.fetch('/systems/crm')).status === 200 ? true : undefined));
    writeFileSync(join(systems, 'crm.conf.json'), text({ _id: 'crm', type: 'system:url', base_url: 'http://127.0.0.1:2/' }));
    await waitFor('the edited system', async () => {
      const c = await hub.json<{ base_url: string }>('/systems/crm/config');
      return c.base_url === 'http://127.0.0.1:2/' ? true : undefined;
    });
  });
});
