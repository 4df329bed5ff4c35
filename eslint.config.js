// Lint, including the layering rules: code may import only from its own layer or a lower one.
//   hub-core  (engine, plain TS)      -> nothing of main/, renderer/, electron, HTTP or DOM
//   main      (host process, Node)    -> hub-core; never renderer/; only main/electron/ may import electron
//   renderer  (browser)               -> types only from hub-core; nothing of main/ or Node
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import svelteParser from 'svelte-eslint-parser';

const upward = (message, ...patterns) => ({ regex: `(^|/)(${patterns.join('|')})(/|$)`, message });
// The DTL engine is used through its entry module (hub-core/dtl/index.ts), never through its files.
const dtlEntry = { regex: '(^|/)dtl/(?!index\\.js$)', message: 'import the DTL engine from hub-core/dtl/index.js, not from its files' };

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
  {
    files: ['hub-core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'hub-core runs without Electron' }],
          patterns: [
            upward('hub-core may not import the host process or the UI', 'main', 'renderer'),
            dtlEntry,
            { group: ['fastify', '@fastify/*', 'electron', 'electron/*', 'electron-updater'], message: 'hub-core has no HTTP server and no Electron' },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'window', 'document', 'fetch'],
    },
  },
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
          patterns: [upward('main may not import the renderer', 'renderer'), dtlEntry, { group: ['electron/*'], message: 'only main/electron/ imports electron' }],
        },
      ],
    },
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
            { regex: '(^|/)hub-core(/|$)', allowTypeImports: true, message: 'the renderer may import only types from hub-core' },
            upward('the renderer may not import the host process', 'main'),
            { regex: '^node:', message: 'the renderer runs in a browser' },
          ],
        },
      ],
    },
  },
);
