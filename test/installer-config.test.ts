// electron-builder.yml is checked the way electron-builder checks it before packaging (its own scheme.json,
// the same ajv it resolves, the same options), so a typo fails here, where no installer can be built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO } from './helpers/hub-process.js';

interface ValidationError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
interface Validator {
  (data: unknown): boolean;
  errors?: ValidationError[] | null;
}
interface AjvLike {
  compile(schema: unknown): Validator;
}

// Resolve js-yaml and ajv from app-builder-lib itself: the exact modules electron-builder loads.
const builderRequire = createRequire(join(REPO, 'node_modules', 'app-builder-lib', 'package.json'));
const { load } = builderRequire('js-yaml') as { load(text: string): unknown };
const AjvClass = (builderRequire('ajv') as { default: new (options: Record<string, unknown>) => AjvLike }).default;
// app-builder-lib/out/util/config/schemaValidator.js builds its validator with exactly these options.
const ajv = new AjvClass({ allErrors: true, verbose: true, coerceTypes: true, strict: false });
const schema: unknown = JSON.parse(readFileSync(join(REPO, 'node_modules', 'app-builder-lib', 'scheme.json'), 'utf8'));
const validate = ajv.compile(schema);

type Config = Record<string, unknown>;

function readConfig(): Config {
  const parsed = load(readFileSync(join(REPO, 'electron-builder.yml'), 'utf8'));
  assert.ok(parsed && typeof parsed === 'object' && !Array.isArray(parsed), 'electron-builder.yml holds a mapping');
  return parsed as Config;
}

function errorsOf(config: Config): ValidationError[] {
  return validate(structuredClone(config)) ? [] : [...(validate.errors ?? [])];
}

const section = (config: Config, key: string): Config => {
  const value = config[key];
  assert.ok(value && typeof value === 'object', `electron-builder.yml has a ${key} section`);
  return value as Config;
};

function targetNames(platform: Config): string[] {
  const targets = platform['target'];
  assert.ok(Array.isArray(targets), 'targets are a list');
  return targets.map((t: unknown) => (typeof t === 'string' ? t : String((t as Config)['target'])));
}

test('electron-builder.yml passes electron-builder’s own schema', () => {
  const errors = errorsOf(readConfig());
  assert.deepEqual(errors.map((e) => `${e.instancePath} ${e.message ?? e.keyword}`), []);
});

test('a misspelt option fails the schema check, naming the option', () => {
  const config = readConfig();
  const { nsis, asarUnpack, ...rest } = config;

  const nsisTypo = errorsOf({ ...rest, asarUnpack, nsiss: nsis });
  assert.ok(nsisTypo.some((e) => e.params['additionalProperty'] === 'nsiss'), JSON.stringify(nsisTypo.slice(0, 3)));

  const unpackTypo = errorsOf({ ...rest, nsis, asarUnpak: asarUnpack });
  assert.ok(unpackTypo.some((e) => e.params['additionalProperty'] === 'asarUnpak'), JSON.stringify(unpackTypo.slice(0, 3)));

  // An option in the wrong place fails too: hardenedRuntime is a macOS option.
  const misplaced = errorsOf({ ...config, linux: { ...section(config, 'linux'), hardenedRuntime: true } });
  assert.ok(misplaced.some((e) => e.instancePath.startsWith('/linux') && e.params['additionalProperty'] === 'hardenedRuntime'));

  // A fuse must be a boolean (ajv coerces "false", as electron-builder does, but not "no").
  const fuses = section(config, 'electronFuses');
  assert.notDeepEqual(errorsOf({ ...config, electronFuses: { ...fuses, runAsNode: 'no' } }), []);
});

test('electron-builder’s own validateConfiguration agrees: the file passes, the typo does not', async () => {
  const { validateConfiguration } = builderRequire('./out/util/config/config.js') as {
    validateConfiguration(config: unknown, debug: { isEnabled: boolean; add(key: string, value: unknown): void }): Promise<void>;
  };
  const debug = { isEnabled: false, add: () => undefined };
  await validateConfiguration(readConfig(), debug);
  await assert.rejects(validateConfiguration({ ...readConfig(), nsiss: {} }, debug), /unknown property 'nsiss'/);
});

test('installers: Windows nsis, macOS dmg + zip with hardened runtime, Linux AppImage + deb', () => {
  const config = readConfig();
  assert.deepEqual(targetNames(section(config, 'win')), ['nsis']);
  const mac = section(config, 'mac');
  assert.deepEqual(targetNames(mac).sort(), ['dmg', 'zip']);
  assert.equal(mac['hardenedRuntime'], true);
  const entitlements = String(mac['entitlements']);
  assert.ok(existsSync(join(REPO, entitlements)), `${entitlements} exists`);
  assert.match(readFileSync(join(REPO, entitlements), 'utf8'), /com\.apple\.security\.cs\.allow-jit/);
  assert.deepEqual(targetNames(section(config, 'linux')).sort(), ['AppImage', 'deb']);
});

test('native modules are unpacked from asar and rebuilt for Electron', () => {
  const config = readConfig();
  const unpack = config['asarUnpack'];
  assert.ok(Array.isArray(unpack));
  assert.ok(unpack.includes('**/*.node'));
  assert.ok(unpack.some((p: unknown) => String(p).includes('better-sqlite3')));
  assert.ok(unpack.some((p: unknown) => String(p).includes('@napi-rs/keyring')));
  assert.equal(config['npmRebuild'], true);
  assert.equal(config['asar'], true);
});

test('fuses: no run-as-node, no NODE_OPTIONS or --inspect, encrypted cookies, app only from asar', () => {
  const fuses = section(readConfig(), 'electronFuses');
  assert.equal(fuses['runAsNode'], false);
  assert.equal(fuses['enableNodeOptionsEnvironmentVariable'], false);
  assert.equal(fuses['enableNodeCliInspectArguments'], false);
  assert.equal(fuses['enableCookieEncryption'], true);
  assert.equal(fuses['onlyLoadAppFromAsar'], true);
  assert.equal(fuses['enableEmbeddedAsarIntegrityValidation'], true);
});

test('the packaged app starts the compiled shell and ships the sample workspace', () => {
  const config = readConfig();
  const main = String(section(config, 'extraMetadata')['main']);
  assert.equal(main, 'out/main/electron/main.js');
  assert.ok(existsSync(join(REPO, 'main', 'electron', 'main.ts')), 'the shell source exists');
  const extra = config['extraResources'];
  assert.ok(Array.isArray(extra) && extra.some((r: unknown) => (r as Config)['from'] === 'resources/sample-workspace'));
  const scripts = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.match(scripts['dist'] ?? '', /npm run build && electron-builder/);
});

/** Every .ts file under a folder of the repo. */
function sources(dir: string): string[] {
  return readdirSync(join(REPO, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts') || f.endsWith('.cts'))
    .map((f) => join(REPO, dir, f));
}

test('everything the app imports at run time ships with it (a dependency, not a devDependency)', () => {
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const missing = new Set<string>();
  const seen = new Set<string>();
  for (const file of [...sources('hub-core'), ...sources('main')]) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^\s*import\s+(?!type\b)[^'"]*?from\s+['"]([^'".][^'"]*)['"]/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('node:') || spec === 'electron') continue; // Electron provides itself
      const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
      seen.add(name);
      if (!(name in pkg.dependencies)) missing.add(`${name} (${file.slice(REPO.length)})`);
    }
  }
  assert.ok(seen.has('better-sqlite3') && seen.has('fastify') && seen.has('@napi-rs/keyring'), `the scan finds imports: ${[...seen].join(', ')}`);
  assert.deepEqual([...missing], [], 'electron-builder packs only "dependencies" into the installer');
});
