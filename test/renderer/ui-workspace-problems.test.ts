// A workspace file that is not valid JSON is shown in the pipe list and in Node config with the parse error and its
// line; a create refused because the id is taken speaks UI (no API hint) and offers to open the existing pipe.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const project = tempDir('datahub-ui-problems-');
const pipes = join(project, 'node', 'pipes');
// The comma after "pipe" is missing: line 4 is where the parser stops.
const BROKEN = '{\n  "_id": "broken",\n  "type": "pipe"\n  "source": {"type": "embedded", "entities": []}\n}\n';

before(async () => {
  mkdirSync(pipes, { recursive: true });
  writeFileSync(join(pipes, 'fine.conf.json'), JSON.stringify({ _id: 'fine', type: 'pipe', source: { type: 'embedded', entities: [] } }, null, 2));
  writeFileSync(join(pipes, 'broken.conf.json'), BROKEN);
  hub = await startHub({ args: ['--workspace', project] });
  browser = await launchChromium();
  page = await browser.newPage();
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  removeDir(project);
});

test('the pipe list and Node config show the file that is not JSON, with its line; fixed, the notice goes', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  const problem = page.getByTestId('workspace-problem').filter({ hasText: 'pipes/broken.conf.json' });
  await problem.waitFor();
  const text = (await problem.textContent()) ?? '';
  assert.match(text, /pipes\/broken\.conf\.json, line 4 \(pipe broken\): not valid JSON/);

  await page.goto(`${hub.url}/#/config`);
  await page.getByTestId('workspace-problem').filter({ hasText: /broken\.conf\.json, line 4/ }).waitFor();

  writeFileSync(join(pipes, 'broken.conf.json'), BROKEN.replace('"pipe"\n', '"pipe",\n'));
  await page.getByTestId('workspace-problems').waitFor({ state: 'detached', timeout: 15_000 });
  assert.equal((await hub.fetch('/pipes/broken')).status, 200, 'the fixed file is loaded');
});

test('a new pipe whose id was taken meanwhile: the message speaks UI and offers to open that pipe', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('new-pipe').click();
  await page.getByTestId('new-pipe-id').fill('late');
  await page.getByLabel('HTTP endpoint receiver → dataset').check();
  // Someone else creates it after the dialog read the taken ids.
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'late', type: 'pipe', source: { type: 'http_endpoint' } }] });
  await page.getByTestId('new-pipe-create').click();
  const error = page.getByTestId('new-pipe-error');
  await error.filter({ hasText: 'a pipe “late” already exists' }).waitFor();
  assert.doesNotMatch((await error.textContent()) ?? '', /PUT|\/pipes\//, 'no API in the words');
  await page.getByTestId('new-pipe-open-existing').click();
  await page.getByTestId('pipe-title').filter({ hasText: 'late' }).waitFor();
});
