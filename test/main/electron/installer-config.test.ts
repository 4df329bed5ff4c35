// electron-builder.yml is checked the way electron-builder checks it before packaging (its own scheme.json,
// the same ajv it resolves, the same options), so a typo fails here, where no installer can be built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { REPO, removeDir, tempDir } from '../../helpers/hub-process.js';
import { SHELL_MAIN } from '../../../main/cli/start.js';
import { binaryTarget, keyringPackage, moduleAbi, type BinaryArch, type BinaryOs } from '../../../scripts/packaging/native-binary.js';
import { sqlitePrebuild, verifyNativeModules } from '../../../scripts/packaging/after-pack.js';
import { pngInfo } from '../../../scripts/png-info.js';

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

test('the deb depends on libsecret (the keychain) besides what Electron needs', () => {
  const depends = section(readConfig(), 'deb')['depends'];
  assert.ok(Array.isArray(depends), 'deb.depends is a list');
  for (const pkg of ['libsecret-1-0', 'libgtk-3-0', 'libnss3', 'xdg-utils']) assert.ok(depends.includes(pkg), `deb depends on ${pkg}`);
});

test('updates: a GitHub feed with draft releases, and artifact names the feed can point at', () => {
  const config = readConfig();
  const publish = section(config, 'publish');
  assert.equal(publish['provider'], 'github');
  assert.equal(publish['releaseType'], 'draft');
  const name = String(config['artifactName']);
  assert.doesNotMatch(name, /\s/, 'no spaces: GitHub would rename the asset and latest*.yml would miss it');
  for (const macro of ['${version}', '${arch}', '${ext}']) assert.ok(name.includes(macro), `artifactName has ${macro}`);
  // The release workflow names the owner and repository on the command line; the result still validates.
  assert.deepEqual(errorsOf({ ...config, publish: { ...publish, owner: 'someone', repo: 'datahub-desktop' } }), []);
  assert.notDeepEqual(errorsOf({ ...config, publish: { ...publish, releaseType: 'drafted' } }), [], 'a wrong releaseType is caught');
});

test('native modules are unpacked from asar and never rebuilt', async () => {
  const config = readConfig();
  const unpack = config['asarUnpack'];
  assert.ok(Array.isArray(unpack));
  assert.ok(unpack.includes('**/*.node'));
  assert.ok(unpack.some((p: unknown) => String(p).includes('better-sqlite3')));
  assert.ok(unpack.some((p: unknown) => String(p).includes('@napi-rs/keyring')));
  assert.equal(config['asar'], true);
  // Prebuilt Node-API binaries load in Electron as they are; electron-builder's rebuild would recompile
  // node_modules in place and needs a compiler.
  assert.equal(config['npmRebuild'], false);
  const hook = String(config['afterPack']);
  assert.ok(existsSync(join(REPO, hook)), `the afterPack hook ${hook} is built (npm run build)`);
  const loaded = (await import(new URL(`file://${join(REPO, hook)}`).href)) as { default?: unknown };
  assert.equal(typeof loaded.default, 'function', 'electron-builder calls its default export');
});

const HOST_OS = process.platform as BinaryOs;
const HOST_ARCH = process.arch as BinaryArch;
const keyringDir = join(REPO, 'node_modules', ...keyringPackage(HOST_OS, HOST_ARCH).split('/'));
const sqliteBinary = join(REPO, 'node_modules', sqlitePrebuild(HOST_OS, HOST_ARCH));

test('native binaries are read for their OS, CPU and ABI', () => {
  const node = binaryTarget(readFileSync(process.execPath));
  assert.deepEqual(node, { os: HOST_OS, archs: [HOST_ARCH] }, 'this Node binary');
  const sqlite = readFileSync(sqliteBinary);
  assert.deepEqual(binaryTarget(sqlite), { os: HOST_OS, archs: [HOST_ARCH] });
  assert.equal(moduleAbi(sqlite), null, 'better-sqlite3 is a Node-API build: the same binary loads in Node and Electron');
  assert.ok(!existsSync(join(REPO, 'node_modules', 'better-sqlite3', 'build')), 'npm install compiled nothing (no node-gyp build folder)');
  const keyringBinary = readdirSync(keyringDir).find((f) => f.endsWith('.node'));
  assert.ok(keyringBinary, `${keyringDir} holds the keychain binding`);
  assert.equal(moduleAbi(readFileSync(join(keyringDir, keyringBinary))), null, 'Node-API: loads in Electron as built');
  assert.throws(() => binaryTarget(Buffer.from('#!/bin/sh\n')), /not an ELF, Mach-O or PE/);
  assert.equal(keyringPackage('darwin', 'arm64'), '@napi-rs/keyring-darwin-arm64');
  assert.equal(keyringPackage('win32', 'x64'), '@napi-rs/keyring-win32-x64-msvc');
});

test('the packaging check refuses native modules of the wrong ABI or CPU and a missing binary', () => {
  // An app.asar.unpacked/node_modules the way electron-builder lays it out, from this tree's real binaries.
  const unpacked = join(tempDir('datahub-unpacked-'), 'node_modules');
  try {
    const sqlite = join(unpacked, sqlitePrebuild(HOST_OS, HOST_ARCH));
    mkdirSync(join(sqlite, '..'), { recursive: true });
    copyFileSync(sqliteBinary, sqlite);
    cpSync(keyringDir, join(unpacked, ...keyringPackage(HOST_OS, HOST_ARCH).split('/')), { recursive: true });
    cpSync(join(REPO, 'node_modules', '@napi-rs', 'keyring'), join(unpacked, '@napi-rs', 'keyring'), { recursive: true });
    const abi = 140;

    const checked = verifyNativeModules(unpacked, HOST_OS, HOST_ARCH, abi);
    assert.ok(checked.some((f) => f.endsWith(`${HOST_OS}-${HOST_ARCH}.node`)) && checked.length >= 2, `checked: ${checked.join(', ')}`);
    // A V8 addon names the ABI it was built for; one built for another runtime is refused.
    const v8addon = join(unpacked, 'some-addon', 'addon.node');
    mkdirSync(join(v8addon, '..'), { recursive: true });
    copyFileSync(sqliteBinary, v8addon);
    appendFileSync(v8addon, 'node_register_module_v127\0');
    assert.throws(() => verifyNativeModules(unpacked, HOST_OS, HOST_ARCH, abi), /some-addon\/addon.node is built for NODE_MODULE_VERSION 127, Electron needs 140/);
    rmSync(join(v8addon, '..'), { recursive: true });
    // Another CPU: this host's binaries do not fit, npm installed no keychain binding and no SQLite build for it.
    const other: BinaryArch = HOST_ARCH === 'arm64' ? 'x64' : 'arm64';
    assert.throws(
      () => verifyNativeModules(unpacked, HOST_OS, other, abi),
      (e: Error) =>
        e.message.includes(`${keyringPackage(HOST_OS, other)} is not in the app, so it would have no keychain on ${HOST_OS}-${other}`) &&
        e.message.includes(`is built for ${HOST_OS}-${HOST_ARCH}, not ${HOST_OS}-${other}`) &&
        e.message.includes(`${sqlitePrebuild(HOST_OS, other)} is not in app.asar.unpacked`),
    );
    rmSync(sqlite);
    assert.throws(() => verifyNativeModules(unpacked, HOST_OS, HOST_ARCH, abi), /the app would have no SQLite/);
  } finally {
    removeDir(join(unpacked, '..'));
  }
});

/** electron-builder's own file filters for the app (files) and for node_modules, as platformPackager builds them. */
function builderFilters(config: Config): { app: (path: string) => boolean; modules: (path: string) => boolean; unpacked: (path: string) => boolean } {
  const matchers = builderRequire('./out/fileMatcher.js') as {
    getMainFileMatchers(appDir: string, dest: string, expand: (s: string) => string, options: object, packager: object, outDir: string, electronCompile: boolean): { createFilter(): Filter }[];
    getNodeModuleFileMatcher(appDir: string, dest: string, expand: (s: string) => string, options: object, packager: object): { createFilter(): Filter; patterns: string[] };
    getFileMatchers(config: Config, name: string, dest: string, options: object): { createFilter(): Filter }[] | null;
  };
  type Filter = (file: string, stat: { isDirectory(): boolean; moduleFullFilePath?: string }) => boolean;
  const info = { projectDir: REPO, buildResourcesDir: 'resources', config, isPrepackedAppAsar: false, debugLogger: { isEnabled: false, add: () => undefined } };
  // The macros electron-builder expands in file patterns, for a Linux x64 build.
  const expand = (s: string): string => s.replaceAll('${platform}', 'linux').replaceAll('${arch}', 'x64').replaceAll('${os}', 'linux');
  const outDir = join(REPO, 'dist');
  const app = matchers.getMainFileMatchers(REPO, '/app', expand, {}, { info }, outDir, false)[0]!.createFilter();
  const modules = matchers.getNodeModuleFileMatcher(REPO, '/app', expand, {}, info).createFilter();
  const unpack = matchers.getFileMatchers(config, 'asarUnpack', '/app', { macroExpander: expand, customBuildOptions: {}, globalOutDir: outDir, defaultSrc: REPO })![0]!.createFilter();
  const file = { isDirectory: () => false };
  return {
    app: (path) => app(join(REPO, path), file),
    // Files of a dependency are matched by their path inside the app (stat.moduleFullFilePath).
    modules: (path) => modules(join(REPO, path), { ...file, moduleFullFilePath: path }),
    unpacked: (path) => unpack(join(REPO, path), { ...file, moduleFullFilePath: path }),
  };
}

test('the files globs ship the compiled app and nothing of the build', () => {
  const filters = builderFilters(readConfig());
  const shipped = ['out/main/electron/main.js', 'out/main/electron/preload.cjs', 'out/main/electron/hub-entry.cjs', 'out/main/cli/datahub.js', 'out/main/server/entity-parse-worker.js', 'out/hub-core/hub.js', 'out/renderer/index.html', 'package.json'];
  for (const path of shipped) assert.equal(filters.app(path), true, `${path} is packed`);
  const left = [
    'out/test/main/electron/installer-config.test.js', 'out/scripts/packaging/after-pack.js', 'out/main/electron/main.js.map', 'out/.tsbuildinfo-electron',
    'resources/icon.png', 'resources/sample-workspace/README.md', 'main/electron/main.ts', 'electron-builder.yml', 'test/run.js', 'dist/linux-unpacked/x',
  ];
  for (const path of left) assert.equal(filters.app(path), false, `${path} stays out of app.asar`);
  // Every file the packed app needs was built: the packaged app runs exactly these.
  for (const path of shipped) assert.ok(existsSync(join(REPO, path)), `${path} exists after npm run build`);

  // A Linux x64 app carries better-sqlite3's Linux x64 binary and none of the other platforms' or its sources.
  assert.equal(filters.modules('node_modules/better-sqlite3/prebuilds/linux-x64.node'), true);
  assert.equal(filters.modules('node_modules/better-sqlite3/lib/index.js'), true);
  for (const path of ['node_modules/better-sqlite3/prebuilds/win32-x64.node', 'node_modules/better-sqlite3/prebuilds/linuxmusl-x64.node', 'node_modules/better-sqlite3/deps/sqlite3/sqlite3.c', 'node_modules/better-sqlite3/src/better_sqlite3.cpp', 'node_modules/better-sqlite3/build/Release/better_sqlite3.node', 'node_modules/better-sqlite3/binding.gyp']) {
    assert.equal(filters.modules(path), false, `${path} stays out`);
  }
  const keyringFile = `${keyringPackage('darwin', 'arm64').slice(1)}/keyring.darwin-arm64.node`;
  for (const path of ['node_modules/better-sqlite3/prebuilds/linux-x64.node', 'node_modules/better-sqlite3/lib/database.js', `node_modules/@${keyringFile}`]) {
    assert.equal(filters.unpacked(path), true, `${path} is unpacked from the asar`);
  }
  assert.equal(filters.unpacked('out/main/electron/main.js'), false, 'the app code stays in the asar');
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

test('the packaged app starts the compiled shell, ships the sample workspace and has its own icon', () => {
  const config = readConfig();
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { main?: string; scripts: Record<string, string> };
  // package.json's main serves `electron .` and the packaged app alike; nothing overrides it for packaging.
  assert.equal(pkg.main, 'out/main/electron/main.js');
  assert.equal(join(REPO, pkg.main), SHELL_MAIN);
  assert.ok(existsSync(SHELL_MAIN), 'the compiled shell exists after npm run build');
  const extraMain = (config['extraMetadata'] as Config | undefined)?.['main'];
  assert.ok(extraMain === undefined || extraMain === pkg.main, `extraMetadata.main ${String(extraMain)} points at the compiled shell`);
  const extra = config['extraResources'];
  assert.ok(Array.isArray(extra) && extra.some((r: unknown) => (r as Config)['from'] === 'resources/sample-workspace'));
  assert.match(pkg.scripts['dist'] ?? '', /npm run build && electron-builder/);

  const icon = String(config['icon']);
  assert.equal(icon, 'resources/icon.png');
  const info = pngInfo(readFileSync(join(REPO, icon)));
  assert.equal(info.width, 1024);
  assert.equal(info.height, 1024);
  assert.equal(info.alpha, true);
  assert.equal(info.topLeft?.[3], 0, 'the corners are transparent');
  assert.ok(existsSync(join(REPO, 'scripts', 'render-icon.ts')), 'the script that renders it from icon.svg is kept');
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
