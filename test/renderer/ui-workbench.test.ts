// The pipe's live transform preview, the command palette, and the environment and secrets views, in Chromium
// against the real hub.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { startHub, removeDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { seedCrew } from '../helpers/crew.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
const shots = join(REPO, 'test-results', 'screenshots');

before(async () => {
  mkdirSync(shots, { recursive: true });
  hub = await startHub();
  browser = await launchChromium();
  await seedCrew(hub);
  page = await browser.newPage();
  await signIn(page, hub);
  await page.getByTestId('pipes').getByText('shout').first().waitFor();
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

/** Replace the text of the Monaco editor with these test ids as one input (newlines would add auto-indentation). */
async function replaceText(ids: string, value: string): Promise<void> {
  const editor = page.getByTestId(`${ids}-editor`);
  await editor.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(value);
  await page.keyboard.press('Shift+ControlOrMeta+End');
  await page.keyboard.press('Delete');
}

test('the Preview tab shows the transformed sample and follows edits: chains, invalid JSON, the stages of the draft', async () => {
  await page.getByRole('button', { name: 'shout' }).click();
  await page.getByRole('tab', { name: 'Preview' }).click();
  const output = page.getByTestId('preview-output');
  await output.filter({ hasText: /ADA LOVELACE/ }).waitFor();
  await textMatches(output, /GRACE HOPPER/);
  await page.getByTestId('preview-transform-editor').locator('.view-lines').filter({ hasText: '"upper"' }).waitFor();
  await page.screenshot({ path: join(shots, 'workbench-preview.png'), fullPage: true });

  // A chain of two transforms shows what each of them produced.
  const chain = [
    { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'first', ['upper', '_S.name']]] } },
    { type: 'dtl', rules: { default: [['copy', '*'], ['add', 'second', ['concat', '_S.first', '!']]] } },
  ];
  await replaceText('preview-transform', JSON.stringify(chain));
  await output.filter({ hasText: 'after transform 2 of 2' }).waitFor();
  const steps = page.getByTestId('preview-chain-step');
  assert.equal(await steps.count(), 6, 'two steps for each of the three entities');
  assert.doesNotMatch((await steps.nth(0).textContent()) ?? '', /second/);
  await textMatches(steps.nth(1), /ADA LOVELACE!/);

  // Invalid JSON is reported next to the editor; the last output stays, dimmed, and the draft cannot be saved.
  await replaceText('preview-transform', '{"type": "dtl", ');
  await page.getByTestId('preview-parse-error').filter({ hasText: 'The transform is not valid JSON' }).waitFor();
  assert.match((await output.getAttribute('class')) ?? '', /stale/);
  await page.getByTestId('preview-save').click();
  await page.getByTestId('preview-status').filter({ hasText: /Not saved: the transform edited in the Preview tab is not valid JSON/ }).waitFor();
  await replaceText('preview-transform', JSON.stringify(chain));
  await page.getByTestId('preview-parse-error').waitFor({ state: 'detached' });

  // The stage selector: the source as read for the draft, and what enters the sink (computed; nothing written).
  const stage = page.getByTestId('preview-stage');
  await stage.getByRole('radio', { name: 'Source' }).click();
  await page.locator('[data-testid="preview-output"][data-stage="source"]').filter({ hasText: 'Grace Hopper' }).waitFor();
  assert.doesNotMatch((await output.textContent()) ?? '', /GRACE HOPPER/);
  await stage.getByRole('radio', { name: 'Sink' }).click();
  await page.locator('[data-testid="preview-output"][data-stage="sink"]').filter({ hasText: 'GRACE HOPPER!' }).waitFor();
  await page.screenshot({ path: join(shots, 'workbench-preview-stages.png'), fullPage: true });
  await stage.getByRole('radio', { name: 'Sink' }).press('ArrowLeft');
  assert.equal(await stage.getByRole('radio', { name: 'After transforms' }).getAttribute('aria-checked'), 'true', 'arrow keys move between stages');

  // Nothing was written: no dataset appeared or changed. Revert leaves nothing unsaved behind.
  const names = (await hub.json<{ _id: string; count: number }[]>('/datasets')).filter((d) => !d._id.startsWith('system:'));
  assert.deepEqual(names.map((d) => [d._id, d.count]), [['crew-members', 3]]);
  await page.getByTestId('preview-revert').click();
  await page.getByTestId('preview-dirty').filter({ hasText: 'no changes' }).waitFor();
});

test('Ctrl+K opens the palette; typing filters and Enter opens the dataset', async () => {
  await page.keyboard.press('Control+k');
  const input = page.getByTestId('palette-input');
  await input.waitFor();
  await input.fill('crew-mem');
  await page.screenshot({ path: join(shots, 'workbench-palette.png') });
  await input.press('Enter');
  await page.getByTestId('palette').waitFor({ state: 'detached' });
  await page.getByTestId('entities').filter({ hasText: 'Grace Hopper' }).waitFor();

  await page.keyboard.press('Control+k');
  await input.fill('environ');
  await input.press('Escape');
  await page.getByTestId('palette').waitFor({ state: 'detached' });
  await page.keyboard.press('Control+k');
  await input.fill('environ');
  await input.press('ArrowDown');
  await input.press('ArrowUp');
  await input.press('Enter');
  await page.getByRole('heading', { name: 'Environment variables' }).waitFor();
});

test('an environment variable added in the UI is set in the hub, and can be changed and deleted', async () => {
  await page.getByRole('button', { name: 'Environment', exact: true }).click();
  await page.getByLabel('New variable name').fill('API_BASE');
  await page.getByLabel('New variable value').fill('https://example.test');
  await page.getByRole('button', { name: 'Add' }).click();
  await page.getByTestId('env').getByText('API_BASE').waitFor();
  assert.equal((await hub.json<Record<string, unknown>>('/env'))['API_BASE'], 'https://example.test');

  await page.getByLabel('Value of API_BASE').fill('https://other.test');
  await page.getByTestId('env').getByRole('button', { name: 'Save' }).click();
  await page.getByTestId('env-message').filter({ hasText: 'Saved API_BASE' }).waitFor();
  assert.equal((await hub.json<Record<string, unknown>>('/env'))['API_BASE'], 'https://other.test');
  await page.screenshot({ path: join(shots, 'workbench-env.png') });

  // Deleting asks first; Cancel keeps the variable.
  await page.getByTestId('env').getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('confirm-dialog').filter({ hasText: 'Delete the environment variable API_BASE?' }).waitFor();
  await page.getByTestId('confirm-cancel').click();
  assert.equal((await hub.json<Record<string, unknown>>('/env'))['API_BASE'], 'https://other.test');
  await page.getByTestId('env').getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('confirm-ok').click();
  await page.getByTestId('env').getByText('API_BASE').waitFor({ state: 'detached' });
  await page.getByTestId('env-message').filter({ hasText: 'Deleted API_BASE' }).waitFor();
  assert.equal((await hub.json<Record<string, unknown>>('/env'))['API_BASE'], undefined);
});

test('a secret set in the UI is listed by name and its value never appears on the page', async () => {
  const value = 's3cr3t-value-do-not-show';
  await page.getByRole('button', { name: 'Secrets', exact: true }).click();
  await page.getByLabel('Secret name').fill('db_password');
  await page.getByLabel('Secret value').fill(value);
  assert.equal(await page.getByLabel('Secret value').getAttribute('type'), 'password');
  await page.getByRole('button', { name: 'Set secret' }).click();
  await page.getByTestId('secrets').getByText('db_password').waitFor();
  assert.ok((await hub.json<string[]>('/secrets')).includes('db_password'));
  assert.ok(!(await page.content()).includes(value), 'the page source does not hold the value');
  assert.equal(await page.getByLabel('Secret value').inputValue(), '', 'the field is cleared');
  await page.screenshot({ path: join(shots, 'workbench-secrets.png') });
});

test('the Systems view lists systems with their type and opens one', async () => {
  await page.getByRole('button', { name: 'Systems', exact: true }).click();
  const crm = page.getByTestId('systems').getByTestId('system-crm');
  await crm.filter({ hasText: 'system:url' }).waitFor();
  await crm.click();
  await page.getByRole('heading', { name: 'crm', exact: true }).waitFor();
  assert.match(page.url(), /#\/systems\/crm$/);
  await page.screenshot({ path: join(shots, 'workbench-systems.png') });
});

test('env and secret requests the hub refuses are explained in words and the typed name and value stay', async () => {
  await page.getByRole('button', { name: 'Environment', exact: true }).click();
  await page.getByLabel('New variable name').fill('HAS SPACE');
  await page.getByLabel('New variable value').fill('kept value');
  await page.getByRole('button', { name: 'Add' }).click();
  const envError = page.getByTestId('env-error');
  await envError.filter({ hasText: /not usable/ }).waitFor();
  await textMatches(envError, /Saving HAS SPACE failed \(400\).*spaces/);
  assert.equal(await page.getByLabel('New variable name').inputValue(), 'HAS SPACE', 'the name stays');
  assert.equal(await page.getByLabel('New variable value').inputValue(), 'kept value', 'the value stays');
  assert.equal(await page.getByRole('button', { name: 'Add' }).isEnabled(), true, 'the form is usable again');
  assert.equal((await hub.json<Record<string, unknown>>('/env'))['HAS SPACE'], undefined);
  await page.screenshot({ path: join(shots, 'workbench-env-error.png') });
  // Corrected, it is saved and the form clears.
  await page.getByLabel('New variable name').fill('HAS_NO_SPACE');
  await page.getByRole('button', { name: 'Add' }).click();
  await page.getByTestId('env').getByText('HAS_NO_SPACE').waitFor();
  assert.equal(await page.getByLabel('New variable value').inputValue(), '');
  assert.equal(await envError.count(), 0);

  const value = 'typed-secret-value-kept-on-error';
  await page.getByRole('button', { name: 'Secrets', exact: true }).click();
  await page.getByLabel('Secret name').fill('bad(name)');
  await page.getByLabel('Secret value').fill(value);
  await page.getByRole('button', { name: 'Set secret' }).click();
  const secretError = page.getByTestId('secrets-error');
  await secretError.filter({ hasText: /parentheses/ }).waitFor();
  await textMatches(secretError, /Setting the secret bad\(name\) failed \(400\)/);
  assert.equal(await page.getByLabel('Secret value').inputValue(), value, 'the value stays in its field');
  assert.ok(!(await page.content()).includes(value), 'the value is not in the page source');
  assert.ok(!(await hub.json<string[]>('/secrets')).includes('bad(name)'));
  await page.getByLabel('Secret name').fill('good_name');
  await page.getByRole('button', { name: 'Set secret' }).click();
  await page.getByTestId('secrets').getByText('good_name').waitFor();
  assert.equal(await page.getByLabel('Secret value').inputValue(), '', 'cleared once the hub took it');
});

test('a system gets secrets of its own (names only) and is deleted after a confirmation', async () => {
  const value = 'crm-token-never-shown-7f3a';
  await hub.json('/systems', { method: 'POST', json: [{ _id: 'erp', type: 'system:url', base_url: 'http://erp.invalid/' }] });
  const answers: string[] = [];
  const collect = (res: Response): void => {
    if (res.url().includes('/api/')) void res.text().then((t) => answers.push(t), () => undefined);
  };
  page.on('response', collect);
  await page.goto(`${hub.url}/#/systems/erp`);
  await page.getByTestId('system-title').filter({ hasText: 'erp' }).waitFor();
  await page.getByTestId('system-secrets-tab').click();
  await page.waitForURL(/#\/systems\/erp\/secrets$/);
  const secrets = page.getByTestId('system-secrets');
  await secrets.getByText('This system has no secrets of its own.').waitFor();
  await secrets.getByLabel('System secret name').fill('token');
  await secrets.getByLabel('System secret value').fill(value);
  assert.equal(await secrets.getByLabel('System secret value').getAttribute('type'), 'password');
  await secrets.getByRole('button', { name: 'Set secret' }).click();
  await page.getByTestId('system-secret-names').getByText('token').waitFor();
  await page.getByTestId('system-secrets-message').filter({ hasText: 'Secret token set for erp.' }).waitFor();
  assert.deepEqual(await hub.json('/systems/erp/secrets'), ['token']);
  assert.deepEqual(await hub.json('/secrets').then((n) => (n as string[]).includes('token')), false, 'not a node secret');
  assert.equal(await secrets.getByLabel('System secret value').inputValue(), '');
  await page.getByRole('tab', { name: 'Secrets (1)' }).waitFor();
  await page.screenshot({ path: join(shots, 'workbench-system-secrets.png') });

  // Deleting one secret, then the system: each asks first.
  await secrets.getByLabel('System secret name').fill('other');
  await secrets.getByLabel('System secret value').fill(value);
  await secrets.getByRole('button', { name: 'Set secret' }).click();
  await page.getByTestId('system-secret-names').getByText('other').waitFor();
  await page.getByTestId('system-secret-names').locator('tr', { hasText: 'other' }).getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('confirm-ok').click();
  await page.getByTestId('system-secret-names').getByText('other').waitFor({ state: 'detached' });
  assert.deepEqual(await hub.json('/systems/erp/secrets'), ['token']);

  await page.getByTestId('system-delete').click();
  const dialog = page.getByTestId('confirm-dialog');
  await dialog.filter({ hasText: 'Delete the system erp?' }).waitFor();
  await textMatches(dialog, /its 1 secret/);
  await page.screenshot({ path: join(shots, 'workbench-system-delete.png') });
  await page.getByTestId('confirm-cancel').click();
  assert.equal((await hub.fetch('/systems/erp')).status, 200, 'Cancel keeps it');
  await page.getByTestId('system-delete').click();
  await page.getByTestId('confirm-ok').click();
  await page.getByTestId('toast').filter({ hasText: 'System erp deleted.' }).waitFor();
  await page.waitForURL(/#\/systems$/);
  await page.getByTestId('systems').getByTestId('system-erp').waitFor({ state: 'detached' });
  assert.equal((await hub.fetch('/systems/erp')).status, 404);
  assert.equal(await page.getByTestId('count-systems').textContent(), '1', 'the sidebar count follows');

  await page.waitForLoadState('networkidle');
  page.off('response', collect);
  assert.ok(answers.length > 5, `API answers were seen: ${answers.length}`);
  for (const text of answers) assert.ok(!text.includes(value), `a secret value in an API answer: ${text.slice(0, 200)}`);
  assert.ok(!(await page.content()).includes(value), 'nor in the page');
});

test('the preview API answers per-transform outputs for a chain and refuses an unknown pipe with a 404', async () => {
  const chain = [
    { type: 'dtl', rules: { default: [['copy', '_id'], ['add', 'n', 1]] } },
    { type: 'dtl', rules: { default: [['copy', '*'], ['if', ['eq', '_S._id', 'b'], ['fail!', 'no b']], ['add', 'm', 2]] } },
  ];
  const res = await hub.json<{ ok: boolean; results: { entities?: unknown[]; error?: { msg: string }; stages?: unknown[] }[] }>('/dtl/preview', {
    method: 'POST',
    json: { transform: chain, entities: [{ _id: 'a', x: 1 }, { _id: 'b' }], pipe: 'shout' },
  });
  assert.equal(res.ok, true);
  assert.deepEqual(res.results[0], { entities: [{ _id: 'a', n: 1, m: 2 }], stages: [{ entities: [{ _id: 'a', n: 1 }] }, { entities: [{ _id: 'a', n: 1, m: 2 }] }] });
  assert.equal(res.results[1]!.error?.msg, 'no b');
  assert.deepEqual(res.results[1]!.stages?.[0], { entities: [{ _id: 'b', n: 1 }] }, 'the first transform still shows its output');
  assert.match(JSON.stringify(res.results[1]!.stages?.[1]), /no b/);

  const missing = await hub.fetch('/dtl/preview', { method: 'POST', json: { transform: chain[0], entities: [], pipe: 'nope' } });
  assert.equal(missing.status, 404);
  assert.match(((await missing.json()) as { error: string }).error, /nope/);
});
