// Monaco, loaded on demand (the first screen never pays for it): the editor core, the JSON language with our
// config schema, DTL completions and hovers, workers bundled by Vite, and a theme that follows the OS.
import * as monaco from 'monaco-editor/editor/editor.api';
// The JSON language's worker client imports Monaco's standard editor contributions (find, folding, format,
// hover, suggest, diff, ...). Loading it here, before the first editor exists, lets their services register in
// time; loaded later on demand, contributions such as code lens fail to find their services.
import 'monaco-editor/languages/features/json/jsonMode';
import { jsonDefaults } from 'monaco-editor/languages/features/json/register';
import EditorWorker from 'monaco-editor/editor/editor.worker?worker';
import JsonWorker from 'monaco-editor/language/json/json.worker?worker';
import type { FunctionDoc } from '../../../hub-core/dtl/index';
import { localApi } from './api';
import { registerDtlLanguageFeatures } from './monaco-dtl';
import { isDark, THEME_EVENT } from './theme.svelte';

export { monaco };

self.MonacoEnvironment = {
  getWorker: (_id: string, label: string) => (label === 'json' ? new JsonWorker({ name: 'json' }) : new EditorWorker({ name: 'editor' })),
};

// The JSON language's own formatters are off: Format (ConfigEditor, lib/config-format.ts) lays a document out as
// workspace files are written, not one DTL token per line, and pasting keeps the pasted layout. Its color swatches
// are off too: a config has no colors.
jsonDefaults.setModeConfiguration({ ...jsonDefaults.modeConfiguration, documentFormattingEdits: false, documentRangeFormattingEdits: false, colors: false });

const applyTheme = (): void => monaco.editor.setTheme(isDark() ? 'vs-dark' : 'vs');
applyTheme();
window.addEventListener(THEME_EVENT, applyTheme);

/** The schema's id; every config model validates against it. */
export const CONFIG_SCHEMA_URI = 'https://datahub.local/schemas/config.json';

let ready: Promise<void> | null = null;

/** A pipe's "transform" value on its own: one transform or a chain, with the config schema's definitions. */
function transformSchema(config: Record<string, unknown>): Record<string, unknown> {
  const one = { $ref: '#/definitions/transform' };
  return { definitions: config['definitions'], anyOf: [one, { type: 'array', items: one, minItems: 1 }] };
}

const SAMPLE_SCHEMA = {
  description: 'sample entities: a JSON array of objects (or one object)',
  anyOf: [{ type: 'array', items: { type: 'object' } }, { type: 'object' }],
};

/**
 * Fetch the config schema and the DTL catalogue from the local hub (both describe this hub's own config language,
 * whichever instance is shown) and wire them into the JSON language. Runs once; a failure is retried next time.
 */
export function prepareMonaco(): Promise<void> {
  ready ??= (async () => {
    const [schema, functions] = await Promise.all([
      localApi<Record<string, unknown>>('/config-schema'),
      localApi<FunctionDoc[]>('/dtl/functions'),
    ]);
    jsonDefaults.setDiagnosticsOptions({
      validate: true,
      allowComments: false,
      trailingCommas: 'error',
      enableSchemaRequest: false,
      // The schema is advisory (the hub decides); its findings are warnings, the hub's and DTL's are errors.
      schemaValidation: 'warning',
      schemas: [
        // Whole configuration entities; a pipe's transform alone and sample entities have schemas of their own.
        { uri: CONFIG_SCHEMA_URI, fileMatch: ['*', '!*.transform.json', '!*.sample.json'], schema },
        { uri: `${CONFIG_SCHEMA_URI}#transform`, fileMatch: ['*.transform.json'], schema: transformSchema(schema) },
        { uri: `${CONFIG_SCHEMA_URI}#sample`, fileMatch: ['*.sample.json'], schema: SAMPLE_SCHEMA },
      ],
    });
    registerDtlLanguageFeatures(monaco, functions);
  })().catch((e: unknown) => {
    ready = null;
    throw e;
  });
  return ready;
}
