// Opening a workspace folder from the workbench (issue 17.8): POST /desktop/workspace/open switches the running hub to
// another project folder — its configuration replaces the hub's, its files are watched and written back — and refuses,
// in words, a path that does not exist, is a file, is not a project, or holds files the hub cannot load.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, removeDir, tempDir, type HubProcess } from '../../helpers/hub-process.js';
import { expectError, waitFor } from '../../helpers/api.js';

const pipe = (id: string): Record<string, unknown> => ({ _id: id, type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a' }] } });

function project(prefix: string, pipes: string[]): string {
  const dir = tempDir(prefix);
  mkdirSync(join(dir, 'node', 'pipes'), { recursive: true });
  for (const id of pipes) writeFileSync(join(dir, 'node', 'pipes', `${id}.conf.json`), JSON.stringify(pipe(id), null, 2) + '\n');
  return dir;
}

describe('POST /desktop/workspace/open', () => {
  let hub: HubProcess;
  const first = project('datahub-open-first-', ['alpha', 'beta']);
  const second = project('datahub-open-second-', ['gamma']);
  const broken = project('datahub-open-broken-', ['fine']);
  writeFileSync(join(broken, 'node', 'pipes', 'bad.conf.json'), '{\n  "_id": "bad",\n  "type": "pipe"\n  "source": {}\n}\n');
  const notProject = tempDir('datahub-open-empty-');

  const post = (body: unknown): Promise<Response> =>
    fetch(`${hub.url}/desktop/workspace/open`, { method: 'POST', headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const folder = async (): Promise<{ dir: string | null }> =>
    (await (await fetch(`${hub.url}/desktop/workspace/folder`, { headers: { authorization: `Bearer ${hub.token}` } })).json()) as { dir: string | null };
  const pipeIds = async (): Promise<string[]> => (await hub.json<{ _id: string }[]>('/pipes')).map((p) => p._id).sort();

  before(async () => {
    hub = await startHub({ args: ['--workspace', first] });
  });
  after(async () => {
    await hub?.stop();
    if (hub) removeDir(hub.dataDir);
    for (const d of [first, second, broken, notProject]) removeDir(d);
  });

  test('a dry run says what the folder holds and what the hub would lose, and changes nothing', async () => {
    assert.deepEqual(await folder(), { dir: first, nodeDir: join(first, 'node') });
    const res = await post({ path: second, dryRun: true });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(body, { dir: second, nodeDir: join(second, 'node'), pipes: 1, systems: 0, problems: [], removed: ['alpha', 'beta'], opened: false });
    assert.deepEqual(await pipeIds(), ['alpha', 'beta']);
  });

  test('opening switches the hub to the folder: its pipes, its files written back, the old folder left alone', async () => {
    const res = await post({ path: second });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { opened: boolean }).opened, true);
    assert.deepEqual(await pipeIds(), ['gamma']);
    assert.equal((await folder()).dir, second);
    // An edit through the hub goes to the new folder's file; the old folder keeps its files as they were.
    const before = readFileSync(join(first, 'node', 'pipes', 'alpha.conf.json'), 'utf8');
    await hub.json('/pipes/gamma/config', { method: 'PUT', json: { ...pipe('gamma'), comment: 'edited' } });
    assert.match(readFileSync(join(second, 'node', 'pipes', 'gamma.conf.json'), 'utf8'), /"comment": "edited"/);
    assert.equal(readFileSync(join(first, 'node', 'pipes', 'alpha.conf.json'), 'utf8'), before);
    // A file added to the new folder is picked up (it is watched); the old one is not watched any more.
    writeFileSync(join(second, 'node', 'pipes', 'delta.conf.json'), JSON.stringify(pipe('delta')));
    writeFileSync(join(first, 'node', 'pipes', 'omega.conf.json'), JSON.stringify(pipe('omega')));
    await waitFor('delta loaded', async () => ((await pipeIds()).includes('delta') ? true : undefined), 10_000);
    assert.ok(!(await pipeIds()).includes('omega'), 'the folder left behind is not watched');
  });

  test('the workspace test runner and the config files follow the folder open now', async () => {
    const r = await fetch(`${hub.url}/desktop/workspace`, { headers: { authorization: `Bearer ${hub.token}` } });
    assert.equal(((await r.json()) as { dir: string }).dir, second);
    const f = await fetch(`${hub.url}/desktop/config-file?kind=pipe&id=gamma`, { headers: { authorization: `Bearer ${hub.token}` } });
    assert.equal(((await f.json()) as { file: string }).file, 'pipes/gamma.conf.json');
  });

  test('a path that is not there, a file, a relative path, a folder that is no project: clear 4xx, nothing changes', async () => {
    let body = await expectError(await post({ path: join(second, 'nope') }), 404, 'missing folder');
    assert.match(body.error, /there is no folder .*nope/);
    body = await expectError(await post({ path: join(second, 'node', 'pipes', 'gamma.conf.json') }), 400, 'a file');
    assert.match(body.error, /is a file, not a folder/);
    body = await expectError(await post({ path: 'relative/folder' }), 400, 'relative');
    assert.match(body.error, /not an absolute path/);
    body = await expectError(await post({ path: notProject }), 400, 'not a project');
    assert.match(body.error, /is not a project folder/);
    await expectError(await post({}), 400, 'no path');
    assert.equal((await folder()).dir, second);
  });

  test('a folder with a file that is not JSON is a 422 listing it as the loader does; opened anyway, the rest loads', async () => {
    const res = await post({ path: broken });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { error: string; detail: string; problems: { file: string; msg: string }[] };
    assert.match(body.error, /1 file in .* cannot be loaded/);
    assert.equal(body.problems.length, 1);
    assert.equal(body.problems[0]!.file, 'pipes/bad.conf.json');
    assert.match(body.problems[0]!.msg, /^not valid JSON: .*line 4/);
    assert.equal((await folder()).dir, second, 'refused: the folder open before stays open');

    const forced = await post({ path: broken, openWithProblems: true });
    assert.equal(forced.status, 200);
    const opened = (await forced.json()) as { problems: unknown[]; pipes: number };
    assert.equal(opened.pipes, 1);
    assert.equal(opened.problems.length, 1);
    assert.deepEqual(await pipeIds(), ['fine']);
  });
});

describe('a hub started without a workspace', () => {
  let hub: HubProcess;
  const dir = project('datahub-open-later-', ['later']);
  before(async () => {
    hub = await startHub();
    await hub.json('/pipes', { method: 'POST', json: [pipe('own')] });
  });
  after(async () => {
    await hub?.stop();
    if (hub) removeDir(hub.dataDir);
    removeDir(dir);
  });

  test('opens one: the dry run names the pipe the hub would lose', async () => {
    const post = (body: unknown): Promise<Response> =>
      fetch(`${hub.url}/desktop/workspace/open`, { method: 'POST', headers: { authorization: `Bearer ${hub.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const dry = (await (await post({ path: dir, dryRun: true })).json()) as { removed: string[] };
    assert.deepEqual(dry.removed, ['own']);
    assert.equal((await post({ path: dir })).status, 200);
    assert.deepEqual((await hub.json<{ _id: string }[]>('/pipes')).map((p) => p._id), ['later']);
  });
});
