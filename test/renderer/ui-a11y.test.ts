// Accessibility in Chromium against the real hub: axe-core's WCAG 2.2 A/AA rules over every view and dialog in
// light, dark and forced-colors mode (no critical or serious finding), and the keyboard paths (skip link, focus on
// the new page's heading, focus back to the opener when a dialog closes, a way out of Monaco, no keyboard trap).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startHub, removeDir, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn, textMatches, waitForScript } from '../helpers/browser.js';
import { seedCrew } from '../helpers/crew.js';
import { runPump } from '../helpers/api.js';
import { axeViolations, describeFindings, type AxeFinding } from '../helpers/axe.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;

before(async () => {
  hub = await startHub();
  await seedCrew(hub);
  await hub.json('/pipes/shout/pump', { method: 'POST', body: new URLSearchParams({ operation: 'start' }) });
  await hub.json('/env', { method: 'POST', json: { region: 'eu' } }).catch(() => undefined);
  // An outbound pipe with something in its outbox.
  await hub.json('/pipes', {
    method: 'POST',
    json: [{ _id: 'shout-out', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'a', n: 1 }, { _id: 'b', n: 2, _deleted: true }] }, sink: { type: 'sql', system: 'crm', table: 't' }, pump: { mode: 'manual' } }],
  });
  await runPump(hub, 'shout-out');
  // Every dataset published: the Registry view lists them, the datasets list marks them.
  await hub.json('/metadata', { method: 'PUT', json: { registry: { publish_all: true } } });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await signIn(page, hub);
  await page.getByTestId('pipes').getByText('shout').first().waitFor();
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
});

interface ViewCase {
  name: string;
  hash: string;
  /** Waits until the view shows what it loaded. */
  ready: (p: Page) => Promise<void>;
  /** Opens a dialog or panel after the view is ready. */
  open?: (p: Page) => Promise<void>;
}

const testId = (id: string) => async (p: Page): Promise<void> => {
  await p.getByTestId(id).first().waitFor();
};

/** Views that show nothing of their own to wait for: the page heading (a view draws once its chunk has loaded). */
const heading = async (p: Page): Promise<void> => {
  await p.locator('main h1').first().waitFor();
};

const VIEWS: ViewCase[] = [
  { name: 'pipes', hash: '#/pipes', ready: testId('pipe-row') },
  {
    name: 'pipe outbox tab',
    hash: '#/pipes/shout-out/outbox',
    ready: testId('outbox-runs'),
    open: async (p) => {
      await p.getByTestId('outbox-runs').getByRole('button', { name: /Show run/ }).first().click();
      await p.getByTestId('outbox-entities').waitFor();
    },
  },
  ...['overview', 'config', 'preview', 'output', 'log', 'graph'].map((tab) => ({
    name: `pipe ${tab} tab`,
    hash: `#/pipes/shout/${tab}`,
    ready: async (p: Page): Promise<void> => {
      await p.locator(`#pipe-tab-${tab}[aria-selected="true"]`).waitFor();
      if (tab === 'config' || tab === 'preview') await p.locator('main .monaco-editor').first().waitFor();
    },
  })),
  { name: 'datasets', hash: '#/datasets', ready: testId('datasets') },
  { name: 'dataset explorer', hash: '#/datasets/crew-members', ready: testId('entity-row') },
  {
    name: 'entity detail',
    hash: '#/datasets/crew-members',
    ready: testId('entity-row'),
    open: async (p) => {
      await p.getByTestId('entity-row').first().click();
      await p.keyboard.press('Enter');
      await p.getByTestId('entity-detail').waitFor();
    },
  },
  {
    name: 'dataset profile',
    hash: '#/datasets/crew-members',
    ready: testId('entity-row'),
    open: async (p) => {
      await p.getByTestId('profile-toggle').click();
      await p.getByTestId('profile-summary').first().waitFor();
    },
  },
  { name: 'flow graph', hash: '#/graph', ready: async (p) => void (await p.locator('[data-key="pipe:shout"]').waitFor()) },
  { name: 'systems', hash: '#/systems', ready: testId('systems') },
  { name: 'system', hash: '#/systems/crm', ready: testId('system-title') },
  { name: 'environment', hash: '#/env', ready: testId('env') },
  { name: 'secrets', hash: '#/secrets', ready: testId('secrets') },
  { name: 'node config', hash: '#/config', ready: testId('export-json') },
  { name: 'tests', hash: '#/tests', ready: heading },
  { name: 'remote', hash: '#/remote', ready: heading },
  { name: 'registry', hash: '#/registry', ready: testId('registry-row') },
  { name: 'settings', hash: '#/settings', ready: testId('settings-keychain-state') },
  {
    name: 'registry entry',
    hash: '#/registry',
    ready: testId('registry-row'),
    open: async (p) => {
      await p.getByTestId('registry-row').filter({ hasText: 'crew-members' }).first().click();
      await p.getByTestId('registry-preview').getByTestId('entity-row').first().waitFor();
    },
  },
  {
    name: 'enrich dialog',
    hash: '#/registry',
    ready: testId('registry-row'),
    open: async (p) => {
      await p.getByTestId('registry-row').filter({ hasText: 'crew-members' }).first().click();
      await p.getByTestId('registry-enrich').click();
      await p.getByTestId('enrich-dialog').waitFor();
    },
  },
  {
    name: 'publish dialog',
    hash: '#/registry',
    ready: testId('registry-row'),
    open: async (p) => {
      await p.getByTestId('publish-open').click();
      await p.getByTestId('publish-dialog').waitFor();
    },
  },
  {
    name: 'command palette',
    hash: '#/pipes',
    ready: testId('pipe-row'),
    open: async (p) => {
      await p.keyboard.press('Control+k');
      await p.getByTestId('palette-input').fill('shout');
    },
  },
  {
    name: 'confirmation',
    hash: '#/systems/crm',
    ready: testId('system-title'),
    open: async (p) => {
      await p.getByTestId('system-delete').click();
      await p.getByTestId('confirm-dialog').waitFor();
    },
  },
  {
    name: 'toast',
    hash: '#/pipes',
    ready: testId('pipe-row'),
    open: async (p) => {
      await p.getByRole('button', { name: /reload/i }).first().click();
      await p.getByTestId('toast').first().waitFor();
    },
  },
  {
    name: 'new pipe dialog',
    hash: '#/pipes',
    ready: testId('pipe-row'),
    open: async (p) => {
      await p.getByTestId('new-pipe').click();
    },
  },
  {
    name: 'shortcuts',
    hash: '#/pipes',
    ready: testId('pipe-row'),
    open: async (p) => {
      await p.keyboard.press('?');
    },
  },
  {
    name: 'config search',
    hash: '#/pipes',
    ready: testId('pipe-row'),
    open: async (p) => {
      await p.keyboard.press('Control+Shift+F');
      await p.getByTestId('config-search-input').fill('shout');
      await p.getByTestId('config-search-match').first().waitFor();
    },
  },
  {
    name: 'open workspace folder',
    hash: '#/config',
    ready: testId('workspace-open-button'),
    open: async (p) => {
      await p.getByTestId('workspace-open-button').click();
      await p.getByTestId('workspace-path').fill('/nowhere/at/all');
      await p.getByTestId('workspace-check').click();
      await p.getByTestId('workspace-open-error').waitFor();
    },
  },
];

/** A dialog or panel was opened: the next view starts from a fresh page. */
let opened = true;

async function show(v: ViewCase): Promise<void> {
  await page.goto(`${hub.url}/${v.hash}`);
  if (opened) await page.reload();
  opened = v.open !== undefined;
  await v.ready(page);
  if (v.open) await v.open(page);
}

test('axe: no critical or serious WCAG A/AA finding in any view or dialog, light, dark and forced colors', async () => {
  const found: string[] = [];
  // Each view is shown once and checked in every mode: a mode is media emulation, which CSS follows at once and the
  // editor's and charts' colours at their next frame (the app has no transitions), so the view is not loaded again.
  for (const v of VIEWS) {
    await show(v);
    for (const mode of [{ colorScheme: 'light' }, { colorScheme: 'dark' }, { colorScheme: 'light', forcedColors: 'active' }] as const) {
      await page.emulateMedia(mode);
      await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
      const f: AxeFinding[] = await axeViolations(page);
      if (f.length > 0) found.push(`${v.name} (${JSON.stringify(mode)}):\n  ${describeFindings(f)}`);
    }
    await page.emulateMedia({ colorScheme: 'light', forcedColors: 'none' });
  }
  assert.equal(found.length, 0, found.join('\n'));
});

/** What has focus: its tag, test id, role, name-ish text, and whether it sits in Monaco or main. */
interface Focused {
  tag: string;
  testid: string | null;
  text: string;
  inMain: boolean;
  inMonaco: boolean;
  key: string;
}

function focused(): Promise<Focused> {
  return page.evaluate<Focused>(`(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { tag: 'body', testid: null, text: '', inMain: false, inMonaco: false, key: 'body' };
    const path = [];
    for (let e = el; e && e !== document.body; e = e.parentElement) path.unshift(e.tagName + ':' + [...e.parentElement.children].indexOf(e));
    return {
      tag: el.tagName.toLowerCase(),
      testid: el.getAttribute('data-testid'),
      text: (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 60),
      inMain: el.closest('main') !== null,
      inMonaco: el.closest('.monaco-editor') !== null,
      key: path.join('/'),
    };
  })()`);
}

test('a skip link is the first Tab stop and moves to the content; the next Tab is inside it', async () => {
  await page.emulateMedia({ colorScheme: 'light', forcedColors: 'none' });
  await show(VIEWS[0]!);
  await page.keyboard.press('Tab');
  const first = await focused();
  assert.equal(first.testid, 'skip-link', `the first Tab stop is the skip link, not ${JSON.stringify(first)}`);
  const box = await page.getByTestId('skip-link').boundingBox();
  assert.ok(box && box.y >= 0 && box.y + box.height <= 720, `the focused skip link is on screen: ${JSON.stringify(box)}`);
  await page.keyboard.press('Enter');
  assert.equal((await focused()).testid, 'content');
  await page.keyboard.press('Tab');
  assert.ok((await focused()).inMain, 'the Tab after the skip link lands in the content, not the sidebar');
});

test('moving to another page puts focus on its heading, named like the page', async () => {
  await show(VIEWS[0]!);
  const h1 = async (): Promise<string> => page.evaluate<string>('document.activeElement.tagName + " " + document.activeElement.textContent.trim()');
  await page.getByTestId('sidebar').getByRole('button', { name: 'Datasets', exact: true }).click();
  await waitForScript(page, 'document.activeElement && document.activeElement.tagName === "H1"');
  assert.equal(await h1(), 'H1 Datasets');
  await page.getByTestId('datasets').getByRole('button', { name: 'crew-members', exact: true }).press('Enter');
  await waitForScript(page, 'document.activeElement.tagName === "H1" && document.activeElement.textContent.trim() === "crew-members"');
  // The palette goes elsewhere: the heading of that page takes focus, not the palette's opener.
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette-input').fill('shout › log');
  await page.keyboard.press('Enter');
  await waitForScript(page, 'document.activeElement.tagName === "H1" && document.activeElement.textContent.trim() === "shout"');
  for (const v of VIEWS.filter((x) => !x.open)) {
    await show(v);
    assert.equal(await page.locator('h1').count(), 1, `${v.name}: exactly one h1`);
  }
});

test('closing a dialog puts focus back on the control that opened it', async () => {
  await show({ name: 'system', hash: '#/systems/crm', ready: testId('system-title') });
  await page.getByTestId('system-delete').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('confirm-cancel').waitFor();
  assert.equal((await focused()).testid, 'confirm-cancel', 'the safe choice has focus in the confirmation');
  await page.keyboard.press('Escape');
  await page.getByTestId('confirm-dialog').waitFor({ state: 'hidden' });
  assert.equal((await focused()).testid, 'system-delete');

  await show(VIEWS[0]!);
  await page.getByTestId('open-palette').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('palette-input').waitFor();
  await page.keyboard.press('Escape');
  assert.equal((await focused()).testid, 'open-palette', 'the palette gives focus back to the top bar button');

  await page.getByTestId('new-pipe').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('new-pipe-id').waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('new-pipe-id').waitFor({ state: 'detached' });
  assert.equal((await focused()).testid, 'new-pipe');

  await page.getByRole('button', { name: 'Keyboard shortcuts' }).focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('shortcuts').waitFor();
  await page.keyboard.press('Escape');
  await page.getByTestId('shortcuts').waitFor({ state: 'hidden' });
  assert.equal((await focused()).text, 'Keyboard shortcuts');
});

test('Monaco: Esc then Tab leaves the editor (said under it), Shift+Tab too; Alt+F1 help is kept', async () => {
  await show({ name: 'pipe config', hash: '#/pipes/shout/config', ready: testId('pipe-title') });
  // Monaco's input: an EditContext element (a textarea where the browser has no EditContext).
  const editor = page.locator('.monaco-editor .native-edit-context, .monaco-editor textarea:not(.ime-text-area)').first();
  await editor.waitFor({ state: 'attached' });
  const hint = page.locator('[data-testid$="-keys"]').first();
  await textMatches(hint, /Esc then Tab leaves the editor/);
  assert.match((await editor.getAttribute('aria-label')) ?? '', /Alt\+F1/, 'the editor label still points to its accessibility help');

  await editor.focus();
  await page.keyboard.press('End');
  await page.keyboard.press('Tab');
  assert.ok((await focused()).inMonaco, 'a plain Tab stays in the editor (it indents)');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  const after = await focused();
  assert.ok(!after.inMonaco && after.tag !== 'body', `Esc, Tab leaves the editor forwards: ${JSON.stringify(after)}`);
  await editor.focus();
  await page.keyboard.press('Escape');
  await page.keyboard.press('Shift+Tab');
  const before = await focused();
  assert.ok(!before.inMonaco && before.tag !== 'body', `Esc, Shift+Tab leaves it backwards: ${JSON.stringify(before)}`);
  assert.notEqual(before.key, after.key);

  // Monaco's own switch: Ctrl+M makes Tab move focus until it is pressed again.
  await editor.focus();
  await page.keyboard.press('Control+m');
  await page.keyboard.press('Tab');
  assert.ok(!(await focused()).inMonaco, 'after Ctrl+M, Tab leaves the editor');
  await editor.focus();
  await page.keyboard.press('Control+m');

  await editor.focus();
  await page.keyboard.press('Alt+F1');
  const help = page.locator('dialog[data-testid$="-help"][open]');
  await help.waitFor();
  await textMatches(help, /Esc then Tab/);
  await page.keyboard.press('Escape');
  await help.waitFor({ state: 'hidden' });
  assert.ok((await focused()).inMonaco, 'closing the help goes back to the editor');
});

test('the flow graph: Tab reaches its nodes and Enter opens one', async () => {
  await show({ name: 'flow graph', hash: '#/graph', ready: testId('graph-view') });
  await page.locator('[data-key="pipe:shout"]').waitFor();
  let reached: string | null = null;
  for (let i = 0; i < 40 && reached === null; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate<string | null>('document.activeElement && document.activeElement.getAttribute("data-key")');
    if (reached !== 'pipe:shout') reached = null;
  }
  assert.equal(reached, 'pipe:shout', 'the pipe node is a Tab stop');
  await page.keyboard.press('Enter');
  await page.waitForURL(/#\/pipes\/shout/);
});

test('no keyboard trap: Tab goes through every view and comes back round to the skip link', async () => {
  const cases = [...VIEWS.filter((v) => !v.open), { name: 'entity detail', hash: '#/datasets/crew-members', ready: testId('entity-row'), open: VIEWS.find((v) => v.name === 'entity detail')!.open! }];
  for (const v of cases) {
    await show(v);
    await page.getByTestId('skip-link').focus();
    const seen = new Set<string>();
    let wrapped = false;
    for (let i = 0; i < 250 && !wrapped; i++) {
      await page.keyboard.press('Tab');
      let now = await focused();
      // Monaco keeps Tab for indenting; its way out is the one it says on screen.
      if (now.inMonaco) {
        await page.keyboard.press('Escape');
        await page.keyboard.press('Tab');
        now = await focused();
        assert.ok(!now.inMonaco, `${v.name}: Esc then Tab left the editor`);
      }
      if (now.testid === 'skip-link' && seen.size > 0) wrapped = true;
      seen.add(now.key);
    }
    assert.ok(wrapped, `${v.name}: Tab came back round to the skip link after ${seen.size} stops (a trap keeps it elsewhere)`);
    assert.ok(seen.size > 12, `${v.name}: Tab went through the page's controls (${seen.size})`);
  }
});

test('200 % zoom on a 1280×720 window (640×360 CSS pixels) keeps every view usable; so does 1280×720', async () => {
  try {
    for (const size of [{ width: 640, height: 360 }, { width: 1280, height: 720 }]) {
      await page.setViewportSize(size);
      for (const v of VIEWS.filter((x) => !x.open)) {
        await show(v);
        const clipped = await page.evaluate<string[]>(`(() => {
          const out = [];
          const w = window.innerWidth, h = window.innerHeight;
          if (document.documentElement.scrollWidth > w) out.push('the page scrolls sideways');
          // The sidebar and the content scroll on their own; the top bar and the page heading must simply fit.
          for (const el of document.querySelectorAll('header button, header input, main h1')) {
            const r = el.getBoundingClientRect();
            if (r.width === 0) continue;
            if (r.right > w + 1 || r.bottom > h + 1 || r.left < -1) out.push((el.getAttribute('aria-label') || el.textContent.trim()).slice(0, 30) + ' at ' + Math.round(r.left) + ',' + Math.round(r.top));
          }
          const nav = document.querySelector('nav');
          if (nav.scrollHeight > nav.clientHeight && getComputedStyle(nav).overflowY !== 'auto') out.push('the sidebar is cut off');
          const main = document.querySelector('main').getBoundingClientRect();
          if (main.width < ${size.width / 2}) out.push('the content is only ' + Math.round(main.width) + ' px wide');
          return out;
        })()`);
        assert.deepEqual(clipped, [], `${v.name} at ${size.width}×${size.height}`);
      }
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 720 });
  }
});

test('prefers-reduced-motion stops animations', async () => {
  await show(VIEWS[0]!);
  const probe = `(() => {
    const d = document.createElement('div');
    d.className = 'spin';
    d.style.animation = 'spin 0.8s linear infinite';
    document.body.append(d);
    const s = getComputedStyle(d);
    const out = s.animationDuration + ' ' + s.animationIterationCount;
    d.remove();
    return out;
  })()`;
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  assert.equal(await page.evaluate<string>(probe), '0.8s infinite');
  await page.emulateMedia({ reducedMotion: 'reduce' });
  assert.equal(await page.evaluate<string>(probe), '0s 1');
  await page.emulateMedia({ reducedMotion: 'no-preference' });
});
