// Step-through in the Config tab (issue 36.4), in Chromium against the real hub on the generated 300-pipe workspace
// with a pipe of our own: a breakpoint set in Monaco's glyph margin stops the run at that step, and the _T shown
// there equals what the trace of the same entity says at that step; step into apply, step out, step over, the
// keyboard (F5/F10), a conditional breakpoint (anywhere, or narrowing a line breakpoint), a line breakpoint with a
// condition of its own, and a condition that does not compile.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { startHub, removeDir, tempDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches } from '../helpers/browser.js';
import { writeBigProject } from '../helpers/big-project.js';
import { axeViolations, describeFindings } from '../helpers/axe.js';
import type { JsonObject, JsonValue } from '../../hub-core/base/index.js';
import type { TraceNode, TransformTrace } from '../../hub-core/dtl/index.js';
import type { PipePreview } from '../../hub-core/preview/index.js';

const SHOTS = '/work/screens/step2';
const project = tempDir('datahub-ui-step-');
let hub: HubProcess;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const R = '$.transform.rules';
const TRANSFORM = {
  type: 'dtl',
  rules: {
    default: [
      ['copy', '_id'],
      ['add', 'name', ['upper', '_S.name']],
      ['add', 'city', ['first', ['hops', { datasets: ['cities c'], where: ['eq', '_S.city', 'c._id'], return: 'c.name' }]]],
      ['add', 'pets', ['apply', 'pet', '_S.pets']],
      ['filter', ['gt', '_S.age', 17]],
    ],
    pet: [
      ['add', 'kind', ['lower', '_S.kind']],
      ['add', 'owner', '_P._T.name'],
    ],
  },
};

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  writeBigProject(project);
  // (the workspace has namespaced identifiers on; this pipe keeps the plain names worked out below)
  const pipe = { _id: 'people-steps', type: 'pipe', namespaced_identifiers: false, source: { type: 'dataset', dataset: 'people' }, transform: TRANSFORM, pump: { mode: 'manual' } };
  writeFileSync(join(project, 'node', 'pipes', 'people-steps.conf.json'), JSON.stringify(pipe, null, 2));
  hub = await startHub({ args: ['--workspace', project] });
  await hub.json('/datasets/cities/entities', { method: 'POST', json: [{ _id: 'osl', name: 'Oslo' }] });
  await hub.json('/datasets/people/entities', {
    method: 'POST',
    json: [
      { _id: 'kid', name: 'Kid', city: 'osl', age: 5, pets: [] },
      { _id: 'ann', name: 'Ann', city: 'osl', age: 40, pets: [{ kind: 'CAT' }, { kind: 'Dog' }] },
    ],
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  removeDir(project);
});

const editor = (): Locator => page.getByTestId('config-editor');
const status = (): Locator => page.getByTestId('step-status');

/** Click the glyph margin on the first line of the rule step at `path`. */
async function toggleBreakpoint(path: string): Promise<number> {
  await page.locator('[data-testid="config-editor"]:not([data-step-lines=""])').waitFor();
  const lines = JSON.parse((await editor().getAttribute('data-step-lines')) ?? '{}') as Record<string, number>;
  const line = lines[path];
  assert.ok(line, `the step ${path} is on a line (${JSON.stringify(lines)})`);
  const number = editor().locator('.margin .line-numbers', { hasText: new RegExp(`^${line}$`) });
  // Scroll the editor until the line is in view (the wheel over the text, as a user would).
  const text = await editor().locator('.monaco-editor .view-lines').first().boundingBox();
  assert.ok(text);
  await page.mouse.move(text.x + text.width / 2, text.y + 40);
  for (let i = 0; i < 40; i++) {
    const shown = (await editor().locator('.margin .line-numbers').allTextContents()).map(Number).filter((n) => n > 0);
    const [min, max] = [Math.min(...shown), Math.max(...shown)];
    if (line > min + 1 && line < max - 2) break;
    await page.mouse.wheel(0, line >= max - 2 ? 120 : -120);
    await page.waitForTimeout(50);
  }
  await number.scrollIntoViewIfNeeded();
  const row = await number.boundingBox();
  const glyph = await editor().locator('.margin .glyph-margin').first().boundingBox();
  assert.ok(row && glyph, 'the line and the glyph margin are on screen');
  await page.mouse.click(glyph.x + glyph.width / 2, row.y + row.height / 2);
  return line;
}

async function pausedAt(path: string): Promise<void> {
  await page.locator(`[data-testid="config-editor"][data-current-path="${path}"]`).waitFor();
}

/** The _T panel: each property's value, and which are marked changed. */
async function shownTarget(): Promise<{ target: JsonObject; changed: string[] }> {
  const rows = page.getByTestId('step-t-prop');
  const target: JsonObject = {};
  const changed: string[] = [];
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    const k = (await row.getAttribute('data-property')) as string;
    const v = await row.getAttribute('data-value');
    if (v !== null) target[k] = JSON.parse(v) as JsonValue;
    if ((await row.getAttribute('class'))?.includes('changed')) changed.push(k);
  }
  return { target, changed };
}

function find(nodes: readonly TraceNode[], at: string): TraceNode | undefined {
  return nodes.find((n) => n.at === at);
}

test('a breakpoint in the glyph margin stops at its step; the _T shown is the trace\'s at that step', async () => {
  await page.goto(`${hub.url}/#/pipes/people-steps/config`);
  await editor().locator('.monaco-editor .view-lines').first().waitFor();
  await page.getByTestId('config-step-toggle').click();
  await page.getByTestId('step-panel').waitFor();
  const line = await toggleBreakpoint(`${R}.default[3]`);
  await page.locator(`[data-testid="config-editor"][data-breakpoint-lines="${line}"]`).waitFor();
  // Monaco draws the decoration at its next render, which a loaded machine can put after the attribute is set.
  await editor().locator('.step-breakpoint').first().waitFor();
  assert.equal(await editor().locator('.step-breakpoint').count(), 1, 'one red dot in the margin');

  await page.getByTestId('step-entity').fill('ann');
  await page.getByRole('button', { name: 'Start' }).click();
  await pausedAt(`${R}.default[3]`);
  await textMatches(status(), new RegExp(`Paused at step 6 of 13: add at \\$\\.transform\\.rules\\.default\\[3\\] \\(line ${line}\\)`));
  assert.equal(await editor().getAttribute('data-current-line'), String(line));
  // Paused on the breakpoint's line: one glyph there, the arrow drawn on the red dot (white on red, not hidden by it).
  const glyph = editor().locator('.step-current-glyph.on-breakpoint');
  await glyph.waitFor();
  assert.equal(await editor().locator('.step-current-glyph').count(), 1);
  assert.equal(await editor().locator('.step-breakpoint').count(), 0, 'no separate dot stacked over the arrow');
  type Styles = { getComputedStyle(el: unknown, pseudo: string): { content: string; color: string; backgroundColor: string } };
  const look = await glyph.evaluate((el) => {
    const a = (globalThis as unknown as Styles).getComputedStyle(el, '::after');
    return { on: el.classList.contains('on-breakpoint'), content: a.content, color: a.color, background: a.backgroundColor };
  });
  assert.deepEqual(look, { on: true, content: '"➜"', color: 'rgb(255, 255, 255)', background: 'rgb(221, 51, 51)' });
  await page.screenshot({ path: join(SHOTS, 'step-breakpoint.png') });

  // The trace of the same entity (a traced preview): _T after this step is what its events up to the step made.
  const preview = await hub.json<PipePreview>('/pipes/people-steps/preview', { method: 'POST', json: { trace: true, entities: [{ _id: 'ann', name: 'Ann', city: 'osl', age: 40, pets: [{ kind: 'CAT' }, { kind: 'Dog' }] }] } });
  const trace = (preview.results[0]!.trace as TransformTrace).entities[0]!;
  const node = find(trace.steps, `${R}.default[3]`)!;
  const expected: JsonObject = {};
  for (const [prop, events] of Object.entries(trace.properties)) {
    const last = events.filter((e) => e.step <= node.id && e.name !== '(filter)').at(-1);
    if (last?.action === 'set') expected[prop] = last.value!;
  }
  const shown = await shownTarget();
  assert.deepEqual(shown.target, expected);
  assert.deepEqual(shown.changed, node.changes!.map((c) => c.property));
  assert.deepEqual(shown.target['pets'], node.changes![0]!.value);
  assert.deepEqual(shown.target, { _id: 'ann', name: 'ANN', city: 'Oslo', pets: [{ kind: 'cat', owner: 'ANN' }, { kind: 'dog', owner: 'ANN' }] });

  const findings = await axeViolations(page, '[data-testid="step-panel"]');
  assert.deepEqual(findings, [], describeFindings(findings));
});

test('step into apply and its rule set (with _S and _P there), step out, step over, F5 and F10', async () => {
  await page.getByRole('button', { name: 'Step into' }).click();
  await pausedAt(`${R}.default[3][2]`);
  await textMatches(status(), /Paused at step 7 of 13: apply/);
  await page.getByRole('button', { name: 'Step into' }).click();
  await pausedAt(`${R}.pet[0]`);
  assert.deepEqual(JSON.parse((await page.getByTestId('step-source').textContent()) ?? ''), { kind: 'CAT' });
  // _P: the caller's _S (the stored source entity, with the dataset's own properties) and _T as apply found it.
  const parent = JSON.parse((await page.getByTestId('step-parent').textContent()) ?? '') as { _S: JsonObject; _T: JsonObject };
  assert.deepEqual(parent._T, { _id: 'ann', name: 'ANN', city: 'Oslo' });
  assert.deepEqual([parent._S['_id'], parent._S['pets']], ['ann', [{ kind: 'CAT' }, { kind: 'Dog' }]]);
  assert.deepEqual(await shownTarget(), { target: { kind: 'cat' }, changed: ['kind'] });
  assert.equal(await page.getByTestId('step-stack').locator('li').count(), 3, 'add > apply > add');
  await page.screenshot({ path: join(SHOTS, 'step-into-apply.png') });
  // Step out: back on the apply that was stepped into, as it returns (what it gave; the caller's _T without "pets").
  await page.getByRole('button', { name: 'Step out' }).click();
  await pausedAt(`${R}.default[3][2]`);
  await textMatches(status(), /Paused at step 12 of 13: returned from apply at/);
  assert.deepEqual(JSON.parse((await page.getByTestId('step-call-value').textContent()) ?? ''), [{ kind: 'cat', owner: 'ANN' }, { kind: 'dog', owner: 'ANN' }]);
  assert.deepEqual((await shownTarget()).target, { _id: 'ann', name: 'ANN', city: 'Oslo' });
  assert.equal(await page.getByTestId('step-stack').locator('li').count(), 2, 'add > apply');
  await page.screenshot({ path: join(SHOTS, 'step-out-returned.png') });
  // Out again: to the next step of the entity's rule set.
  await page.keyboard.press('Shift+F11');
  await pausedAt(`${R}.default[4]`);

  // Restart: paused at the breakpoint again; F10 steps over apply to the filter, F5 runs to the end.
  await page.getByRole('button', { name: 'Restart' }).click();
  await pausedAt(`${R}.default[3]`);
  await page.keyboard.press('F10');
  await pausedAt(`${R}.default[4]`);
  await page.keyboard.press('F5');
  await status().filter({ hasText: 'The run ended: 1 entity output.' }).waitFor();
  assert.equal(await editor().getAttribute('data-current-path'), '');
});

test('a conditional breakpoint stops where the DTL expression is true; one that does not compile says why', async () => {
  await toggleBreakpoint(`${R}.default[3]`);
  await page.locator('[data-testid="config-editor"][data-breakpoint-lines=""]').waitFor();
  await page.getByTestId('step-condition').fill('["eq", "_S.kind", "Dog"]');
  await page.getByRole('button', { name: 'Restart' }).click();
  await pausedAt(`${R}.pet[0]`);
  await textMatches(status(), /Paused at step 10 of 13: add at .*pet\[0\].* the condition is true/);
  assert.deepEqual(JSON.parse((await page.getByTestId('step-source').textContent()) ?? ''), { kind: 'Dog' });
  await page.screenshot({ path: join(SHOTS, 'step-condition.png') });
  await page.getByRole('button', { name: 'Continue' }).click();
  await pausedAt(`${R}.pet[1]`);

  // The condition on a line breakpoint: pause at pet[1] only, and only for the dog (not at the cat's pet[1]).
  await toggleBreakpoint(`${R}.pet[1]`);
  await page.getByRole('checkbox', { name: /Only at breakpoints/ }).check();
  await page.getByRole('button', { name: 'Restart' }).click();
  await status().filter({ hasText: 'Paused at step 11 of 13' }).waitFor();
  await pausedAt(`${R}.pet[1]`);
  assert.deepEqual(JSON.parse((await page.getByTestId('step-source').textContent()) ?? ''), { kind: 'Dog' });
  await page.getByRole('button', { name: 'Continue' }).click();
  await status().filter({ hasText: 'The run ended' }).waitFor();
  await page.getByRole('checkbox', { name: /Only at breakpoints/ }).uncheck();

  await page.getByTestId('step-condition').fill('["no-such-function", 1]');
  await page.getByRole('button', { name: 'Restart' }).click();
  await page.getByTestId('step-error').filter({ hasText: 'not a valid DTL expression' }).waitFor();
  await textMatches(page.getByTestId('step-error'), /no-such-function/);
  // The run recorded with the old condition is gone, not shown as if it answered the new one.
  await textMatches(status(), /Press Start/);
  assert.equal(await editor().getAttribute('data-current-path'), '');
  await page.screenshot({ path: join(SHOTS, 'step-bad-condition.png') });

  // A pasted sample entity instead of a source entity; no condition, the breakpoint at pet[1] for its one pet.
  await page.getByTestId('step-condition').fill('');
  await page.getByText('Paste an entity instead').click();
  await page.getByRole('textbox', { name: 'Sample entity (JSON)' }).fill('{"_id": "zed", "name": "Zed", "age": 30, "pets": [{"kind": "Emu"}]}');
  assert.equal(await page.getByTestId('step-entity').isDisabled(), true, 'the _id field is off while an entity is pasted');
  // (after the refused condition nothing is recorded: the button starts again)
  await page.getByRole('button', { name: 'Start' }).click();
  await status().filter({ hasText: 'Paused at step 9 of 11' }).waitFor();
  await pausedAt(`${R}.pet[1]`);
  assert.deepEqual(await shownTarget(), { target: { kind: 'emu', owner: 'ZED' }, changed: ['owner'] });
  assert.deepEqual(pageErrors, []);
});

test('a line breakpoint with a condition of its own pauses only where it holds; it is remembered and marked in the margin', async () => {
  // From the test before: one breakpoint, at pet[1]; a pasted entity. Back to ann (pets CAT and Dog).
  await page.getByRole('textbox', { name: 'Sample entity (JSON)' }).fill('');
  await page.getByTestId('step-entity').fill('ann');
  const row = page.locator(`[data-testid="step-bp"][data-path="${R}.pet[1]"]`);
  const condition = row.getByTestId('step-bp-condition');
  await condition.fill('["eq", "_S.kind", "CAT"]');
  await condition.press('Tab');
  await page.getByRole('button', { name: 'Restart' }).click();
  // Steps of ann: copy, add, add, hops and its return, add, apply, then pet[0], pet[1] for CAT (8 and 9), for Dog
  // (10 and 11), apply's return, filter: the cat's pet[1] is step 9 of 13.
  await status().filter({ hasText: 'Paused at step 9 of 13' }).waitFor();
  await pausedAt(`${R}.pet[1]`);
  await textMatches(status(), /its breakpoint's condition is true/);
  assert.deepEqual(JSON.parse((await page.getByTestId('step-source').textContent()) ?? ''), { kind: 'CAT' });
  await textMatches(row.getByTestId('step-bp-hits'), /^1×$/);
  await page.screenshot({ path: join(SHOTS, 'step-breakpoint-condition.png') });
  // The dog's pet[1] does not hold: Continue runs to the end.
  await page.getByRole('button', { name: 'Continue' }).click();
  await status().filter({ hasText: 'The run ended' }).waitFor();
  await editor().locator('.step-breakpoint.conditional').waitFor();

  // Kept across a reload: Start pauses at the cat's pet[1] again.
  await page.reload();
  await page.getByTestId('step-panel').waitFor();
  const again = page.locator(`[data-testid="step-bp"][data-path="${R}.pet[1]"]`).getByTestId('step-bp-condition');
  assert.equal(await again.inputValue(), '["eq", "_S.kind", "CAT"]');
  await page.getByTestId('step-entity').fill('ann');
  await page.getByRole('button', { name: 'Start' }).click();
  await status().filter({ hasText: 'Paused at step 9 of 13' }).waitFor();
  await editor().locator('.step-current-glyph.on-breakpoint').waitFor();

  // One that does not compile names its breakpoint; cleared, the breakpoint pauses every time again.
  await again.fill('["no-such-function"]');
  await again.press('Tab');
  await page.getByRole('button', { name: 'Restart' }).click();
  await page.getByTestId('step-error').filter({ hasText: /condition of the breakpoint at .*pet\[1\] is not a valid DTL expression/ }).waitFor();
  await again.fill('');
  await again.press('Tab');
  await editor().locator('.step-breakpoint:not(.conditional)').waitFor();
  assert.deepEqual(pageErrors, []);
});

test('the breakpoints and the open step-through panel are remembered per pipe across page loads', async () => {
  const lines = JSON.parse((await editor().getAttribute('data-step-lines')) ?? '{}') as Record<string, number>;
  const pet1 = lines[`${R}.pet[1]`];
  await page.locator(`[data-testid="config-editor"][data-breakpoint-lines="${pet1}"]`).waitFor();
  await page.reload();
  await page.getByTestId('step-panel').waitFor();
  assert.equal(await page.getByTestId('config-step-toggle').getAttribute('aria-pressed'), 'true');
  await page.locator(`[data-testid="config-editor"][data-breakpoint-lines="${pet1}"]`).waitFor();
  // Start runs to the remembered breakpoint (scrolled into view: the arrow on its red dot).
  await page.getByTestId('step-entity').fill('ann');
  await page.getByRole('button', { name: 'Start' }).click();
  await status().filter({ hasText: 'Paused at step 9 of 13' }).waitFor();
  await pausedAt(`${R}.pet[1]`);
  await editor().locator('.step-current-glyph.on-breakpoint').waitFor();
  await page.screenshot({ path: join(SHOTS, 'step-remembered.png') });
  // Closed: stays closed after a reload (the breakpoint still kept for when it opens again).
  await page.getByTestId('config-step-toggle').click();
  await page.getByTestId('step-panel').waitFor({ state: 'detached' });
  await page.reload();
  await editor().locator('.monaco-editor .view-lines').first().waitFor();
  assert.equal(await page.getByTestId('step-panel').count(), 0);
  assert.equal(await page.getByTestId('config-step-toggle').getAttribute('aria-pressed'), 'false');
  await page.getByTestId('config-step-toggle').click();
  await page.locator(`[data-testid="config-editor"][data-breakpoint-lines="${pet1}"]`).waitFor();
  assert.deepEqual(pageErrors, []);
});
