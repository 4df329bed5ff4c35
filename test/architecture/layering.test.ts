import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';
import { REPO } from '../helpers/hub-process.js';

const eslint = new ESLint({ cwd: REPO });

async function messages(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => /restricted/.test(m.ruleId ?? '')).map((m) => m.message);
}

test('hub-core may not import main, renderer, fastify or electron', async () => {
  assert.equal((await messages('hub-core/x.ts', "import { buildServer } from '../main/server/app.js';\nvoid buildServer;\n")).length, 1);
  assert.ok((await messages('hub-core/x.ts', "import Fastify from 'fastify';\nvoid Fastify;\n")).length >= 1);
  assert.ok((await messages('hub-core/x.ts', "import { app } from 'electron';\nvoid app;\n")).length >= 1);
  assert.deepEqual(await messages('hub-core/x.ts', "import { Hub } from './hub.js';\nvoid Hub;\n"), []);
});

test('only main/electron imports electron', async () => {
  assert.ok((await messages('main/server/x.ts', "import { app } from 'electron';\nvoid app;\n")).length >= 1);
  assert.deepEqual(await messages('main/electron/x.ts', "import { app } from 'electron';\nvoid app;\n"), []);
});

test('the renderer imports only types from hub-core and nothing from main', async () => {
  assert.deepEqual(await messages('renderer/x.ts', "import type { Entity } from '../hub-core/base/index.js';\nexport type E = Entity;\n"), []);
  assert.equal((await messages('renderer/x.ts', "import { prepareEntity } from '../hub-core/base/index.js';\nvoid prepareEntity;\n")).length, 1);
  assert.equal((await messages('renderer/x.ts', "import { startHub } from '../main/cli/serve.js';\nvoid startHub;\n")).length, 1);
});

test('the layering rules also hold inside Svelte components', async () => {
  const bad = `<script lang="ts">\n  import { prepareEntity } from '../hub-core/base/index.js';\n  console.log(prepareEntity);\n</script>\n`;
  assert.equal((await messages('renderer/src/X.svelte', bad)).length, 1);
  const ok = `<script lang="ts">\n  import type { Entity } from '../hub-core/base/index.js';\n  let e: Entity | null = null;\n  console.log(e);\n</script>\n`;
  assert.deepEqual(await messages('renderer/src/X.svelte', ok), []);
});

test('outside dtl/, the DTL engine is imported from its entry module only', async () => {
  assert.equal((await messages('hub-core/x.ts', "import { compileTransform } from './dtl/transform.js';\nvoid compileTransform;\n")).length, 1);
  assert.equal((await messages('main/server/x.ts', "import type { DtlLookup } from '../../hub-core/dtl/lookup.js';\nexport type L = DtlLookup;\n")).length, 1);
  assert.deepEqual(await messages('hub-core/x.ts', "import { compileTransform } from './dtl/index.js';\nvoid compileTransform;\n"), []);
});

test('inside hub-core, a folder imports only the layers before it, and another folder through its index.ts', async () => {
  const rule = /layers before it/;
  const lowerThroughIndex = await messages('hub-core/pipes/x.ts', "import { Dataset } from '../storage/index.js';\nvoid Dataset;\n");
  assert.deepEqual(lowerThroughIndex, []);
  const aroundIndex = await messages('hub-core/pipes/x.ts', "import { Dataset } from '../storage/dataset-log.js';\nvoid Dataset;\n");
  assert.equal(aroundIndex.length, 1);
  assert.match(aroundIndex[0]!, /through its index\.ts/);
  const upwards = await messages('hub-core/storage/x.ts', "import { PumpService } from '../pipes/index.js';\nvoid PumpService;\n");
  assert.equal(upwards.length, 1);
  assert.match(upwards[0]!, rule);
  assert.equal((await messages('hub-core/pipes/sources/x.ts', "import type { Hub } from '../../hub.js';\nexport type H = Hub;\n")).length, 1);
  assert.deepEqual(await messages('hub-core/project/x.ts', "import type { Hub } from '../hub.js';\nexport type H = Hub;\n"), []);
  assert.deepEqual(await messages('hub-core/pipes/sources/x.ts', "import { jsonSource } from './json-source.js';\nvoid jsonSource;\n"), [], 'inside a folder, files import each other directly');
});

test('main, the tests and the renderer reach a hub-core folder through its index.ts', async () => {
  assert.equal((await messages('main/server/x.ts', "import { Dataset } from '../../hub-core/storage/dataset-log.js';\nvoid Dataset;\n")).length, 1);
  assert.deepEqual(await messages('main/server/x.ts', "import { Dataset } from '../../hub-core/storage/index.js';\nvoid Dataset;\n"), []);
  assert.equal((await messages('test/x.test.ts', "import { Dataset } from '../hub-core/storage/dataset-log.js';\nvoid Dataset;\n")).length, 1);
  assert.equal((await messages('renderer/src/x.ts', "import type { DatasetInfo } from '../../hub-core/storage/dataset-log';\nexport type D = DatasetInfo;\n")).length, 1);
});
