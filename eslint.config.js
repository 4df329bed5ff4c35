// Lint, including the layering rules: code may import only from its own layer or a lower one.
//   hub-core  (engine, plain TS)      -> nothing of main/, renderer/, electron, HTTP or DOM
//   main      (host process, Node)    -> hub-core; never renderer/; only main/electron/ may import electron
//   renderer  (browser)               -> types only from hub-core; nothing of main/ or Node
// Inside hub-core, the folders below, lowest first: a folder imports only the ones before it, and another folder
// only through its index.ts (docs/architecture.md draws them). test/architecture/layering.test.ts checks that these rules bite.
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import svelteParser from 'svelte-eslint-parser';

export const HUB_CORE_LAYERS = [
  'base', // errors, JSON, time, text files, globs: imports nothing of hub-core
  'storage', // the database, dataset logs and indexes, compaction, the push spool
  'security', // secret cipher and masking, env and secret stores, users
  'dtl', // the DTL engine
  'config', // the config store, variables, settings, systems, workspace files
  'pipes', // pipe config and runtime, source and sink types, pumps, workers, outbox
  'explore', // profiles, relations, entity filters
  'hub.ts', // the Hub: one data folder and every store
  'preview', // stages, traces, impact, published output
  'lineage', // where an entity came from and went
  'project', // workspaces, the project runner, tests
  'registry', // the registry of shared pipes and systems
  'node-maintenance.ts',
  'desktop-types.ts',
];
const FOLDERS = HUB_CORE_LAYERS.filter((l) => !l.endsWith('.ts'));
const asModule = (layer) => (layer.endsWith('.ts') ? `${layer.slice(0, -3)}\\.js` : `${layer}/`);

const upward = (message, ...patterns) => ({ regex: `(^|/)(${patterns.join('|')})(/|$)`, message });
// From outside hub-core (main, test, the renderer): a folder through its index.ts only.
const hubCoreEntry = {
  regex: `(^|/)hub-core/(${FOLDERS.join('|')})/(?!index(\\.js)?$)`,
  message: "import a hub-core folder through its index.ts (e.g. 'hub-core/pipes/index.js'), not through its files",
};
// Inside hub-core, for a file of `layer`: nothing of a later layer, and another folder through its index.ts only.
function hubCoreLayerPatterns(layer) {
  const at = HUB_CORE_LAYERS.indexOf(layer);
  const later = HUB_CORE_LAYERS.slice(at + 1);
  const others = FOLDERS.filter((f) => f !== layer);
  const patterns = [
    { regex: `^(\\./|(\\.\\./)+)(${others.join('|')})/(?!index\\.js$)`, message: 'import another hub-core folder through its index.ts, not through its files' },
  ];
  if (later.length > 0) {
    patterns.push({
      regex: `^(\\./|(\\.\\./)+)(${later.map(asModule).join('|')})`,
      message: `${layer} may import only the hub-core layers before it (${HUB_CORE_LAYERS.slice(0, at).join(', ') || 'none'}); see HUB_CORE_LAYERS in eslint.config.js`,
    });
  }
  return patterns;
}
const hubCoreCommon = [
  upward('hub-core may not import the host process or the UI', 'main', 'renderer'),
  { group: ['fastify', '@fastify/*', 'electron', 'electron/*', 'electron-updater'], message: 'hub-core has no HTTP server and no Electron' },
];
const hubCoreRules = (patterns) => ({
  'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'hub-core runs without Electron' }], patterns: [...hubCoreCommon, ...patterns] }],
  'no-restricted-globals': ['error', 'window', 'document', 'fetch'],
});

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'bench-results/**'] },
  ...tseslint.configs.recommended,
  ...svelte.configs.recommended,
  {
    files: ['renderer/**/*.svelte', 'renderer/**/*.svelte.ts'],
    languageOptions: { parser: svelteParser, parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  { files: ['hub-core/*.ts'], rules: hubCoreRules(hubCoreLayerPatterns('hub.ts')) },
  ...HUB_CORE_LAYERS.filter((l) => l.endsWith('.ts') && l !== 'hub.ts').map((l) => ({ files: [`hub-core/${l}`], rules: hubCoreRules(hubCoreLayerPatterns(l)) })),
  ...FOLDERS.map((f) => ({ files: [`hub-core/${f}/**/*.ts`], rules: hubCoreRules(hubCoreLayerPatterns(f)) })),
  {
    files: ['main/**/*.ts'],
    ignores: ['main/electron/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'electron', message: 'only main/electron/ imports electron' },
            { name: 'electron-updater', message: 'only main/electron/ imports electron-updater (it loads electron)' },
          ],
          patterns: [upward('main may not import the renderer', 'renderer'), hubCoreEntry, { group: ['electron/*'], message: 'only main/electron/ imports electron' }],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [hubCoreEntry] }] },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.svelte'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'the renderer talks to the hub over HTTP only' }],
          patterns: [
            hubCoreEntry,
            // Where the renderer may import types from: a folder's index.ts or a file at hub-core's top.
            { regex: `(^|/)hub-core/((${FOLDERS.join('|')})/index|[a-z-]+)(\\.js)?$`, allowTypeImports: true, message: 'the renderer may import only types from hub-core' },
            upward('the renderer may not import the host process', 'main'),
            { regex: '^node:', message: 'the renderer runs in a browser' },
          ],
        },
      ],
    },
  },
);
