// The workbench frame in Chromium against the real hub: the sidebar (counts, collapse remembered), the top bar,
// Ctrl/Cmd+digit view shortcuts, the "?" shortcut list, and the command palette (opened from inside Monaco, fuzzy
// matching, recent items, pump operations limited to what a pipe supports, actions with their results as toasts).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches, waitForScript } from '../helpers/browser.js';
import { seedCrew } from '../helpers/crew.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const shots = join(REPO, 'test-results', 'screenshots');

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  await seedCrew(hub, [
    { _id: 'embedded-one', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'e1' }] }, pump: { mode: 'manual' } },
    { _id: 'frozen', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'f1' }] }, pump: { mode: 'off' } },
  ]);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await signIn(page, hub);
  await page.getByTestId('pipes').getByText('shout').first().waitFor();
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

const sidebar = (): ReturnType<Page['getByTestId']> => page.getByTestId('sidebar');

async function palette(query: string): Promise<void> {
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill(query);
}

/** The keys of the palette's items, in the order shown. */
async function paletteKeys(): Promise<string[]> {
  return page.getByTestId('palette-items').locator('li[data-key]').evaluateAll((els) => els.map((e) => e.getAttribute('data-key') ?? ''));
}

test('the frame: a one-line top bar, a sidebar of views with counts, content that scrolls on its own; light and dark', async () => {
  const bar = await page.locator('header.topbar').boundingBox();
  assert.ok(bar && bar.height <= 48, `the top bar is one slim line at 1280 px: ${JSON.stringify(bar)}`);
  await page.getByTestId('instance').filter({ hasText: 'This computer' }).waitFor();
  await page.getByTestId('hub-status').filter({ hasText: /hub \S+ · up/ }).waitFor();
  await sidebar().getByTestId('count-pipes').filter({ hasText: '3' }).waitFor();
  assert.equal(await sidebar().getByTestId('count-datasets').textContent(), '1');
  assert.equal(await sidebar().getByTestId('count-systems').textContent(), '1');

  // Every view is one row of the sidebar, in a single column.
  const xs = await sidebar().locator('button[data-view]').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().x)));
  assert.equal(xs.length, 11, "ten views and Settings");
  assert.equal(new Set(xs).size, 1, `one column: ${xs.join(',')}`);
  assert.equal(await sidebar().locator('button[data-view="pipes"]').getAttribute('aria-current'), 'page');

  await sidebar().getByRole('button', { name: 'Datasets' }).click();
  await page.waitForURL(/#\/datasets$/);
  assert.equal(await sidebar().locator('button[data-view="datasets"]').getAttribute('aria-current'), 'page');

  // The window itself never scrolls: the content area does.
  await page.goto(`${hub.url}/#/pipes/shout/log`);
  await page.getByTestId('pipe-title').waitFor();
  const scroll = await page.evaluate<{ doc: number; win: number }>('({ doc: document.documentElement.scrollHeight, win: window.innerHeight })');
  assert.ok(scroll.doc <= scroll.win, `the page is exactly one window high: ${JSON.stringify(scroll)}`);
  assert.equal(await page.evaluate('getComputedStyle(document.querySelector(\'[data-testid="content"]\')).overflowY'), 'auto');

  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('pipes').getByText('shout').first().waitFor();
  await page.emulateMedia({ colorScheme: 'light' });
  const lightBg = await page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor');
  await page.screenshot({ path: join(shots, 'frame-light.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  const darkBg = await page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor');
  await page.screenshot({ path: join(shots, 'frame-dark.png') });
  assert.notEqual(lightBg, darkBg, 'the theme follows the OS setting');
  await page.emulateMedia({ colorScheme: 'light' });
});

test('the sidebar collapses to icons (button or Ctrl+B) and stays so after a reload', async () => {
  const width = async (): Promise<number> => (await sidebar().boundingBox())?.width ?? 0;
  assert.ok((await width()) > 150);
  await page.getByTestId('sidebar-toggle').click();
  assert.ok((await width()) < 70, `collapsed: ${await width()}`);
  await page.reload();
  await page.getByTestId('pipes').getByText('shout').first().waitFor();
  assert.ok((await width()) < 70, 'still collapsed after a reload');
  await sidebar().getByRole('button', { name: 'Systems' }).click();
  await page.waitForURL(/#\/systems$/);
  await page.screenshot({ path: join(shots, 'frame-collapsed.png') });
  await page.keyboard.press('Control+b');
  await waitForScript(page, '(document.querySelector(\'[data-testid="sidebar"]\')?.getBoundingClientRect().width ?? 0) > 150');
});

test('Ctrl+1…9 switch views, from a text field too; "?" lists the shortcuts', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('pipes').getByText('shout').first().waitFor();
  await page.keyboard.press('Control+2');
  await page.waitForURL(/#\/datasets$/);
  await page.keyboard.press('Control+4');
  await page.waitForURL(/#\/systems$/);
  await page.keyboard.press('Control+5');
  await page.getByRole('heading', { name: 'Environment variables' }).waitFor();
  await page.getByLabel('New variable name').focus();
  await page.keyboard.press('Control+6');
  await page.getByRole('heading', { name: 'Secrets' }).waitFor();
  await page.keyboard.press('Control+1');
  await page.waitForURL(/#\/pipes$/);

  // "?" typed into a field is a character, not the shortcut list.
  await page.getByTestId('pipe-search').fill('');
  await page.getByTestId('pipe-search').press('?');
  assert.equal(await page.getByTestId('pipe-search').inputValue(), '?');
  assert.equal(await page.getByTestId('shortcuts').isVisible(), false);
  await page.getByTestId('pipe-search').fill('');
  await page.getByTestId('pipe-search').blur();

  await page.keyboard.press('?');
  const list = page.getByTestId('shortcuts');
  await list.waitFor({ state: 'visible' });
  const text = (await list.textContent()) ?? '';
  assert.match(text, /Ctrl\+K/);
  assert.match(text, /Ctrl\+9\s*Remote/);
  await page.screenshot({ path: join(shots, 'frame-shortcuts.png') });
  await page.keyboard.press('Escape');
  await list.waitFor({ state: 'hidden' });
});

test('Ctrl+K opens the palette while the Monaco config editor has focus, and Escape returns there', async () => {
  await page.goto(`${hub.url}/#/pipes/shout/config`);
  const editor = page.getByTestId('config-editor');
  await editor.locator('.monaco-editor .view-lines').first().waitFor();
  await editor.locator('.monaco-editor .view-lines').first().click();
  const before = await editor.locator('.monaco-editor .view-lines').first().textContent();
  assert.ok(await page.evaluate('document.activeElement?.closest(".monaco-editor") !== null'), 'the editor has focus');

  await page.keyboard.press('Control+k');
  await page.getByTestId('palette').waitFor();
  assert.ok(await page.evaluate('document.activeElement?.getAttribute("data-testid") === "palette-input"'), 'the palette input has focus');
  await page.keyboard.press('Escape');
  await page.getByTestId('palette').waitFor({ state: 'detached' });
  assert.ok(await page.evaluate('document.activeElement?.closest(".monaco-editor") !== null'), 'focus is back in the editor');

  // Monaco did not take Ctrl+K as a chord: the next keys type as usual and nothing else happened.
  assert.equal(await editor.locator('.monaco-editor .view-lines').first().textContent(), before);
  assert.equal(await page.getByTestId('config-dirty').textContent(), 'no changes');
});

test('a pump operation from the palette starts a run, says so in a toast, and the run is in the execution log', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('pipes').getByText('shout').first().waitFor();
  await palette('start shout');
  assert.equal((await paletteKeys())[0], 'pump:shout:start');
  assert.match((await page.getByTestId('palette-items').locator('li[aria-selected="true"] mark').allTextContents()).join('|'), /start/);
  await page.getByTestId('palette-input').press('Enter');
  await page.getByTestId('toast').filter({ hasText: /shout: Started a run/ }).waitFor();

  await palette('shout exec');
  assert.equal((await paletteKeys())[0], 'pipe:shout:log');
  await page.getByTestId('palette-input').press('Enter');
  await page.waitForURL(/#\/pipes\/shout\/log$/);
  await page.getByTestId('pump-log').filter({ hasText: 'pump-completed' }).waitFor({ timeout: 20_000 });
  const sink = await hub.json<{ count: number }>('/datasets/shout');
  assert.equal(sink.count, 3, 'the run wrote the sink');

  // An operation that does not apply in the pump's state now is not sent; the toast says why.
  await palette('stop shout');
  assert.equal((await paletteKeys())[0], 'pump:shout:stop');
  await page.getByTestId('palette-input').press('Enter');
  await page.getByTestId('toast').filter({ hasText: /“stop” on shout: nothing to do\. Nothing runs/ }).waitFor();
});

test('the palette matches names, not the letters of the kind tag in front of them; the tag alone filters by kind', async () => {
  // "set" is in "dataset", not in "crew-members": the dataset is not a match.
  await palette('set');
  const set = await paletteKeys();
  await page.keyboard.press('Escape');
  assert.ok(!set.includes('dataset:crew-members'), `"set" does not match crew-members: ${set.join(', ')}`);
  // The tag as a whole word narrows to that kind.
  await palette('dataset crew');
  assert.equal((await paletteKeys())[0], 'dataset:crew-members');
  await page.keyboard.press('Escape');
  await palette('pipe froz');
  assert.equal((await paletteKeys())[0], 'pipe:frozen');
  const frozen = await paletteKeys();
  await page.keyboard.press('Escape');
  assert.ok(frozen.every((k) => k.endsWith(':frozen') || k.includes(':frozen:')), `only the frozen pipe's items: ${frozen.join(', ')}`);
  await palette('pump');
  const pumps = await paletteKeys();
  assert.ok(pumps.filter((k) => k.startsWith('pump:')).length >= 3, `"pump" lists the pump operations: ${pumps.join(', ')}`);
  assert.ok(!pumps.some((k) => k.startsWith('pipe:')), `no pipe matches "pump" by its tag: ${pumps.join(', ')}`);
  await page.keyboard.press('Escape');
});

test('a pump operation the hub refuses ends in an error toast in words', async () => {
  await hub.json('/pipes', { method: 'POST', json: [{ _id: 'doomed', type: 'pipe', source: { type: 'embedded', entities: [] }, pump: { mode: 'manual' } }] });
  await palette('start doomed');
  // The palette re-reads the lists when it opens; once that is done, the pipe goes away behind its back.
  await page.locator('header.topbar button[aria-label="Reload"]:not([disabled])').waitFor();
  assert.equal((await paletteKeys())[0], 'pump:doomed:start');
  assert.equal((await hub.fetch('/pipes/doomed', { method: 'DELETE' })).status, 200);
  await page.getByTestId('palette-input').press('Enter');
  const error = page.getByTestId('toast').and(page.locator('[data-kind="error"]'));
  await error.filter({ hasText: /“start” on doomed failed \(404\)/ }).waitFor();
  await textMatches(error, /doomed/);
  await error.getByRole('button', { name: 'Dismiss' }).click();
  await error.waitFor({ state: 'detached' });
});

test('the palette offers a pipe only the pump operations it supports', async () => {
  const pipes = await hub.json<{ _id: string; runtime: { 'supported-operations': string[] } }[]>('/pipes');
  for (const id of ['embedded-one', 'frozen', 'shout']) {
    const supported = pipes.find((p) => p._id === id)!.runtime['supported-operations'];
    await palette(`pump ${id}`);
    const offered = (await paletteKeys()).filter((k) => k.startsWith(`pump:${id}:`)).map((k) => k.slice(`pump:${id}:`.length));
    await page.keyboard.press('Escape');
    // update-last-seen needs a value, typed on the pipe page; every other supported operation is offered.
    assert.deepEqual(offered.sort(), supported.filter((o) => o !== 'update-last-seen').sort(), `${id}: offered ${offered.join(',')}`);
  }
  await palette('pump frozen');
  assert.ok(!(await paletteKeys()).includes('pump:frozen:start'), 'a pipe whose pump is off cannot be started');
  assert.ok(!(await paletteKeys()).includes('pump:embedded-one:enable'), 'a manual pump has no schedule to enable');
  await page.keyboard.press('Escape');
});

test('palette actions: fuzzy matches are marked, recent items come first, exports download, New system opens', async () => {
  await palette('nwsys');
  assert.equal((await paletteKeys())[0], 'action:new-system');
  const marked = await page.getByTestId('palette-items').locator('li').first().locator('mark').allTextContents();
  assert.equal(marked.join(''), 'Nwsys', `the matched letters of the label are marked: ${marked.join('|')}`);
  assert.equal(await page.getByTestId('palette-items').locator('li').first().locator('.kind mark').count(), 0, 'no letter of the kind tag counts');
  await page.getByTestId('palette-input').press('Enter');
  await page.getByRole('heading', { name: 'New system' }).waitFor();

  await page.keyboard.press('Control+k');
  const keys = await paletteKeys();
  assert.equal(keys[0], 'action:new-system', 'the last item run is first');
  assert.ok(keys.indexOf('pipe:shout:log') > 0 && keys.indexOf('pipe:shout:log') < 5, `recent items next: ${keys.slice(0, 6).join(',')}`);
  await page.getByTestId('palette-input').fill('export');
  await page.screenshot({ path: join(shots, 'palette-actions.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, 'palette-actions-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByTestId('palette-input').fill('export json');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('palette-input').press('Enter')]);
  assert.equal(download.suggestedFilename(), 'datahub-config.json');
  const exported = JSON.parse(readFileSync(await download.path(), 'utf8')) as { _id: string }[];
  assert.deepEqual(exported.map((e) => e._id).sort(), ['crm', 'embedded-one', 'frozen', 'shout']);
  await page.getByTestId('toast').filter({ hasText: 'Exported the default config group to datahub-config.json' }).waitFor();

  // A dataset and a system are reached the same way; leaving the new system's draft asks first.
  await palette('crew');
  const [question] = await Promise.all([
    page.waitForEvent('dialog').then(async (d) => {
      const message = d.message();
      await d.accept();
      return message;
    }),
    page.getByTestId('palette-input').press('Enter'),
  ]);
  assert.match(question, /unsaved/);
  await page.waitForURL(/#\/datasets\/crew-members$/);
  await palette('system crm');
  await page.getByTestId('palette-input').press('Enter');
  await page.getByTestId('system-title').filter({ hasText: 'crm' }).waitFor();
  assert.deepEqual(pageErrors, [], 'the page raised no errors');
});

test('the palette deletes a pipe after asking on its page; its dataset is kept', async () => {
  await page.goto(`${hub.url}/#/pipes`);
  await page.getByTestId('pipes').getByText('embedded-one').first().waitFor();
  await palette('delete embedded-one');
  assert.equal((await paletteKeys())[0], 'delete-pipe:embedded-one');
  await page.getByTestId('palette-input').press('Enter');
  await page.waitForURL(/#\/pipes\/embedded-one/);
  const dialog = page.getByTestId('confirm-dialog');
  await dialog.filter({ hasText: 'Delete the pipe embedded-one?' }).waitFor();
  await textMatches(dialog, /Its dataset embedded-one .*is kept/);
  await page.getByTestId('confirm-ok').click();
  await page.waitForURL(/#\/pipes$/);
  assert.equal((await hub.fetch('/pipes/embedded-one')).status, 404);
});
