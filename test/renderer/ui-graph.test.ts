// The flow graph: the model built from the real hub's /api/pipes and /api/datasets (datasets → pipes → datasets, joins
// dashed, neighbourhoods), and the Graph view in Chromium: nodes, the dashed join edge, clicking opens the pipe, and a
// pipe's Graph tab leaves out pipes that are neither upstream nor downstream.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import type { Browser, Page, Route } from 'playwright-core';
import { startHub, removeDir, tempDir, REPO, type HubProcess } from '../helpers/hub-process.js';
import { launchChromium, signIn } from '../helpers/browser.js';
import type { DatasetInfo } from '../../hub-core/storage/index.js';
import type { PipeInfo } from '../../hub-core/pipes/index.js';
import type * as FlowModelModule from '../../renderer/src/lib/flow-model.js';

let hub: HubProcess;
let browser: Browser;
let page: Page;
let flow: typeof FlowModelModule;
let moduleDir: string;
const shots = join(REPO, 'test-results', 'screenshots');

/**
 * The renderer's flow model, compiled here on its own: the build sends renderer files through Vite only (its output
 * folder is emptied on every build), and the model imports nothing but types, so one transpiled file is the module.
 */
async function loadFlowModel(): Promise<typeof FlowModelModule> {
  const source = readFileSync(join(REPO, 'renderer', 'src', 'lib', 'flow-model.ts'), 'utf8');
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true } }).outputText;
  moduleDir = tempDir('flow-model-');
  const file = join(moduleDir, 'flow-model.mjs');
  writeFileSync(file, js);
  return (await import(pathToFileURL(file).href)) as typeof FlowModelModule;
}

const dtl = (rules: unknown[]): { type: string; rules: { default: unknown[] } } => ({ type: 'dtl', rules: { default: [['copy', '*'], ...rules] } });

before(async () => {
  mkdirSync(shots, { recursive: true });
  flow = await loadFlowModel();
  hub = await startHub();
  await hub.json('/pipes', {
    method: 'POST',
    json: [
      { _id: 'people', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'p1', name: 'Ada', country: 'NO' }] }, pump: { mode: 'manual' } },
      { _id: 'countries', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'NO', name: 'Norway' }] }, pump: { mode: 'manual' } },
      {
        _id: 'people-report',
        type: 'pipe',
        source: { type: 'dataset', dataset: 'people' },
        transform: dtl([['add', 'country', ['hops', { datasets: ['countries c'], where: ['eq', '_S.country', 'c._id'], return: 'c.name' }]]]),
        pump: { mode: 'manual' },
      },
      { _id: 'report-out', type: 'pipe', source: { type: 'dataset', dataset: 'people-report' }, sink: { type: 'json' }, pump: { schedule_interval: 3600 } },
      { _id: 'inbox', type: 'pipe', source: { type: 'http_endpoint' }, sink: { type: 'dataset', dataset: 'inbox-store' } },
      { _id: 'both', type: 'pipe', source: { type: 'merge_datasets', datasets: ['people p', 'inbox-store i'] }, pump: { mode: 'manual' } },
    ],
  });
  // A transform that does not compile is stored only with force, as a pipe with config errors.
  await hub.json('/pipes?force=true', {
    method: 'POST',
    json: [{ _id: 'broken-rules', type: 'pipe', source: { type: 'dataset', dataset: 'inbox-store' }, transform: dtl([['add', 'x', ['no-such-function']]]), pump: { mode: 'manual' } }],
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await signIn(page, hub);
});

after(async () => {
  await browser?.close();
  await hub?.stop();
  if (hub) removeDir(hub.dataDir);
  if (moduleDir) removeDir(moduleDir);
});

async function hubModel(): Promise<FlowModelModule.FlowModel> {
  const [pipes, datasets] = await Promise.all([hub.json<PipeInfo[]>('/pipes'), hub.json<DatasetInfo[]>('/datasets')]);
  return flow.buildFlowModel(pipes, datasets);
}

const edgeKeys = (m: FlowModelModule.FlowModel): string[] => m.edges.map((e) => `${e.from} -${e.kind}-> ${e.to}`).sort();

test('the model has a node per pipe and dataset, with reads, writes and a join edge', async () => {
  const model = await hubModel();
  const pipeNodes = model.nodes.filter((n) => n.kind === 'pipe').map((n) => n.id).sort();
  assert.deepEqual(pipeNodes, ['both', 'broken-rules', 'countries', 'inbox', 'people', 'people-report', 'report-out']);
  assert.ok(!model.nodes.some((n) => n.id.startsWith('system:')), 'system datasets are left out');
  const edges = edgeKeys(model);
  for (const e of [
    'pipe:people -writes-> dataset:people',
    'dataset:people -reads-> pipe:people-report',
    'dataset:countries -joins-> pipe:people-report',
    'pipe:people-report -writes-> dataset:people-report',
    'dataset:people-report -reads-> pipe:report-out',
    'pipe:inbox -writes-> dataset:inbox-store',
    'dataset:people -reads-> pipe:both',
    'dataset:inbox-store -reads-> pipe:both',
  ]) {
    assert.ok(edges.includes(e), `${e} in\n${edges.join('\n')}`);
  }
  assert.ok(!edges.some((e) => e.startsWith('pipe:report-out -writes')), 'a json sink writes no dataset');
  assert.ok(!edges.some((e) => e.endsWith('-> pipe:inbox')), 'a receiver has no incoming dataset');
  const inbox = model.nodes.find((n) => n.key === 'pipe:inbox');
  assert.equal(inbox?.detail, 'http_endpoint');
  assert.equal(model.nodes.find((n) => n.key === 'pipe:report-out')?.detail, '→ json');
  const ds = model.nodes.find((n) => n.key === 'dataset:people-report');
  assert.equal(ds?.missing, true, 'a sink dataset no pipe has written yet is marked missing');
});

test('pipe states: config errors, disabled, a failed last run', async () => {
  const pipes = await hub.json<PipeInfo[]>('/pipes');
  const status = (id: string, failed: string[] = []): string => flow.pipeStatus(pipes.find((p) => p._id === id)!, new Set(failed));
  assert.equal(status('report-out'), 'ok', 'a scheduled pipe that has not failed');
  assert.equal(status('people'), 'ok', 'a manual pipe is not disabled: it runs when asked');
  assert.equal(status('people', ['people']), 'failed');
  assert.equal(status('broken-rules', ['broken-rules']), 'config-error', 'config errors win');
});

test('joined datasets are found in hops, apply-hops and lookup-entity, at any depth', () => {
  const transform = {
    type: 'dtl',
    rules: {
      default: [
        ['add', 'a', ['hops', { datasets: ['orders o', 'products p'], where: ['eq', '_S._id', 'o.c'] }]],
        ['add', 'b', ['apply-hops', 'x', { datasets: ['stock s'], where: ['eq', '_S._id', 's._id'] }]],
        ['add', 'c', ['first', ['lookup-entity', 'codes', '_S.code']]],
      ],
      x: [['copy', '*']],
    },
  };
  assert.deepEqual(flow.joinedDatasets(transform).sort(), ['codes', 'orders', 'products', 'stock']);
  assert.deepEqual(flow.sourceDatasets({ type: 'conditional', condition: 'prod', alternatives: { prod: { type: 'dataset', dataset: 'live' }, test: { type: 'embedded', entities: [] } } }), ['live']);
  assert.deepEqual(flow.sourceDatasets({ type: 'union_datasets', datasets: ['a x', 'b'] }), ['a', 'b']);
});

test('the neighbourhood of a pipe holds its upstream and downstream, not unrelated pipes', async () => {
  const model = await hubModel();
  const around = flow.neighbourhood(model, 'pipe:people-report');
  const keys = around.nodes.map((n) => n.key).sort();
  for (const k of ['pipe:people', 'dataset:people', 'dataset:countries', 'pipe:countries', 'pipe:people-report', 'dataset:people-report', 'pipe:report-out']) {
    assert.ok(keys.includes(k), `${k} in ${keys.join(', ')}`);
  }
  assert.ok(!keys.includes('pipe:inbox'), 'the receiver pipe is unrelated');
  assert.ok(!keys.includes('pipe:both'), 'a sibling reading the same dataset is neither upstream nor downstream');
  assert.ok(around.edges.every((e) => keys.includes(e.from) && keys.includes(e.to)));
  assert.deepEqual(flow.neighbourhood(model, 'pipe:nope'), { nodes: [], edges: [] });
});

test('the Graph view draws the chain with a dashed join; clicking a pipe opens it', async () => {
  await page.goto(`${hub.url}/#/graph`);
  const graph = page.getByTestId('flow-graph');
  await graph.locator('[data-key="pipe:people-report"]').waitFor();
  assert.equal(await graph.getByTestId('flow-node').count(), (await hubModel()).nodes.length);
  const joinEdge = graph.locator('path[data-kind="joins"][data-from="dataset:countries"][data-to="pipe:people-report"]');
  await joinEdge.waitFor();
  type Styles = { getComputedStyle(el: unknown): { strokeDasharray: string } };
  const dasharray = (el: unknown): string => (globalThis as unknown as Styles).getComputedStyle(el).strokeDasharray;
  const dash = await joinEdge.evaluate(dasharray);
  assert.match(dash, /\d/, `the join edge is dashed: ${dash}`);
  const solid = graph.locator('path[data-kind="reads"][data-from="dataset:people"][data-to="pipe:people-report"]');
  assert.equal(await solid.evaluate(dasharray), 'none', 'a read edge is solid');
  // Nodes are laid out left to right: the source dataset before the pipe before its sink.
  const x = async (key: string): Promise<number> => (await graph.locator(`[data-key="${key}"]`).boundingBox())!.x;
  assert.ok((await x('dataset:people')) < (await x('pipe:people-report')));
  assert.ok((await x('pipe:people-report')) < (await x('dataset:people-report')));
  await page.screenshot({ path: join(shots, 'flow-graph.png') });

  // Keyboard: Tab reaches a node, Enter opens it.
  await graph.locator('[data-key="dataset:people"]').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/#\/datasets\/people$/);
  await page.goBack();
  await graph.locator('[data-key="pipe:people-report"]').click();
  await page.waitForURL(/#\/pipes\/people-report$/);
});

test('a pipe whose last run failed is drawn as failed', async () => {
  const failing = { _id: 'fails', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'x' }] }, transform: dtl([['if', true, ['fail!', 'always']]]), pump: { mode: 'manual' } };
  await hub.json('/pipes', { method: 'POST', json: [failing] });
  await hub.json('/pipes/fails/pump', { method: 'POST', json: { operation: 'start' } });
  for (let i = 0; i < 100; i++) {
    const pump = await hub.json<{ 'last-run'?: { status?: string } }>('/pipes/fails/pump');
    if (pump['last-run']?.status) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await page.goto(`${hub.url}/#/graph`);
  await page.reload();
  await page.locator('[data-key="pipe:fails"][data-status="failed"]').waitFor();
});

test('a run that fails while the graph is open turns its pipe red without a reload', async () => {
  const flaky = { _id: 'flaky', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'y' }] }, transform: dtl([['if', true, ['fail!', 'no']]]), pump: { mode: 'manual' } };
  await hub.json('/pipes', { method: 'POST', json: [flaky] });
  await page.goto(`${hub.url}/#/graph`);
  await page.reload();
  const node = page.locator('[data-key="pipe:flaky"]');
  await node.waitFor();
  assert.notEqual(await node.getAttribute('data-status'), 'failed', 'it has not run yet');
  // A run far shorter than the poll interval: the graph sees it in the pipe's execution log.
  await hub.json('/pipes/flaky/pump', { method: 'POST', json: { operation: 'start' } });
  await page.locator('[data-key="pipe:flaky"][data-status="failed"]').waitFor({ timeout: 20_000 });
});

test('against a hub whose pipe list reports no last run (the hosted service), failures are read from the execution logs', async () => {
  const strip = async (route: Route): Promise<void> => {
    const response = await route.fetch();
    const pipes = (await response.json()) as { runtime: Record<string, unknown> }[];
    for (const p of pipes) delete p.runtime['last-run'];
    await route.fulfill({ response, json: pipes });
  };
  await page.route(/\/api\/pipes$/, strip);
  try {
    const hosted = { _id: 'hosted', type: 'pipe', source: { type: 'embedded', entities: [{ _id: 'z' }] }, transform: dtl([['if', true, ['fail!', 'no']]]), pump: { mode: 'manual' } };
    await hub.json('/pipes', { method: 'POST', json: [hosted] });
    await page.goto(`${hub.url}/#/graph`);
    await page.reload();
    await page.locator('[data-key="pipe:fails"][data-status="failed"]').waitFor();
    const node = page.locator('[data-key="pipe:hosted"]');
    await node.waitFor();
    assert.notEqual(await node.getAttribute('data-status'), 'failed', 'it has not run yet');
    await hub.json('/pipes/hosted/pump', { method: 'POST', json: { operation: 'start' } });
    await page.locator('[data-key="pipe:hosted"][data-status="failed"]').waitFor({ timeout: 20_000 });
  } finally {
    await page.unroute(/\/api\/pipes$/, strip);
  }
});

test("a pipe's Graph tab shows its neighbourhood only", async () => {
  await page.goto(`${hub.url}/#/pipes/people-report/graph`);
  const graph = page.getByTestId('flow-graph');
  await graph.locator('[data-key="pipe:report-out"]').waitFor();
  for (const k of ['pipe:people', 'dataset:countries', 'pipe:people-report']) assert.equal(await graph.locator(`[data-key="${k}"]`).count(), 1, k);
  assert.equal(await graph.locator('[data-key="pipe:inbox"]').count(), 0, 'an unrelated pipe is not drawn');
  assert.equal(await graph.locator('[data-key="pipe:both"]').count(), 0);
  await page.screenshot({ path: join(shots, 'flow-graph-neighbourhood.png') });
});
