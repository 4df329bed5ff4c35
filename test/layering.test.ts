import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';
import { REPO } from './helpers/hub-process.js';

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
  assert.deepEqual(await messages('renderer/x.ts', "import type { Entity } from '../hub-core/base/entity.js';\nexport type E = Entity;\n"), []);
  assert.equal((await messages('renderer/x.ts', "import { prepareEntity } from '../hub-core/base/entity.js';\nvoid prepareEntity;\n")).length, 1);
  assert.equal((await messages('renderer/x.ts', "import { startHub } from '../main/cli/serve.js';\nvoid startHub;\n")).length, 1);
});

test('the layering rules also hold inside Svelte components', async () => {
  const bad = `<script lang="ts">\n  import { prepareEntity } from '../hub-core/base/entity.js';\n  console.log(prepareEntity);\n</script>\n`;
  assert.equal((await messages('renderer/src/X.svelte', bad)).length, 1);
  const ok = `<script lang="ts">\n  import type { Entity } from '../hub-core/base/entity.js';\n  let e: Entity | null = null;\n  console.log(e);\n</script>\n`;
  assert.deepEqual(await messages('renderer/src/X.svelte', ok), []);
});

test('outside dtl/, the DTL engine is imported from its entry module only', async () => {
  assert.equal((await messages('hub-core/x.ts', "import { compileTransform } from './dtl/transform.js';\nvoid compileTransform;\n")).length, 1);
  assert.equal((await messages('main/server/x.ts', "import type { DtlLookup } from '../../hub-core/dtl/lookup.js';\nexport type L = DtlLookup;\n")).length, 1);
  assert.deepEqual(await messages('hub-core/x.ts', "import { compileTransform } from './dtl/index.js';\nvoid compileTransform;\n"), []);
});
