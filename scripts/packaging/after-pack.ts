// electron-builder's afterPack hook (electron-builder.yml), run once per platform and architecture after
// the app's files are in place and before the installer is made and signed.
//
// electron-builder would rebuild native modules for Electron inside the project's own node_modules
// (npmRebuild), after which `npm start`, `npm test` and the CLI fail on the Node build they need. So
// npmRebuild is off, and this hook builds better-sqlite3 for the target Electron in a staging copy under
// dist/.native/ and puts only the resulting binary into the packaged app (app.asar.unpacked). The
// development tree is never touched. Then it checks every native binary the app ships: right OS, right
// CPU, the Electron ABI, and the keychain binding for the target present.
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, sep } from 'node:path';
import { keyringPackage, readBinary, type BinaryArch, type BinaryOs } from './native-binary.js';

/** The part of electron-builder's AfterPackContext this hook reads. */
export interface PackContext {
  appOutDir: string;
  electronPlatformName: string;
  /** builder-util's Arch enum: 0 ia32, 1 x64, 2 armv7l, 3 arm64, 4 universal. */
  arch: number;
  packager: {
    info: { projectDir: string; framework: { version: string } };
    config: { buildDependenciesFromSource?: boolean | null };
    getResourcesDir(appOutDir: string): string;
  };
}

const ARCHS = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'] as const;
const OS_OF: Record<string, BinaryOs> = { darwin: 'darwin', mas: 'darwin', win32: 'win32', linux: 'linux' };

interface RebuildOptions {
  buildPath: string;
  electronVersion: string;
  platform: NodeJS.Platform;
  arch: string;
  onlyModules: string[];
  force: boolean;
  buildFromSource: boolean;
  mode: 'sequential';
  projectRootPath: string;
}

/** Build better-sqlite3 for one Electron, platform and CPU in a copy; returns the built binary. */
async function buildForElectron(projectDir: string, electronVersion: string, os: BinaryOs, arch: BinaryArch, fromSource: boolean): Promise<string> {
  // Inside the project, so @electron/rebuild finds prebuild-install and node-gyp in its node_modules.
  const stage = join(projectDir, 'dist', '.native', `${os}-${arch}`);
  const source = join(projectDir, 'node_modules', 'better-sqlite3');
  const target = join(stage, 'node_modules', 'better-sqlite3');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, 'node_modules'), { recursive: true });
  const build = `${sep}build`;
  cpSync(source, target, { recursive: true, filter: (file) => !file.slice(source.length).startsWith(build) });
  const version = (JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as { version: string }).version;
  writeFileSync(join(stage, 'package.json'), JSON.stringify({ name: 'datahub-native-stage', version: '0.0.0', private: true, dependencies: { 'better-sqlite3': version } }));
  const { rebuild } = (await import('@electron/rebuild')) as unknown as { rebuild(options: RebuildOptions): Promise<void> };
  // With buildFromSource off, a prebuilt binary for this Electron is downloaded when better-sqlite3
  // publishes one; otherwise it is compiled against Electron's headers (compilers needed, same OS only).
  await rebuild({ buildPath: stage, electronVersion, platform: os, arch, onlyModules: ['better-sqlite3'], force: true, buildFromSource: fromSource, mode: 'sequential', projectRootPath: stage });
  const binary = join(target, 'build', 'Release', 'better_sqlite3.node');
  if (!existsSync(binary)) throw new Error(`building better-sqlite3 for Electron ${electronVersion} (${os}-${arch}) produced no ${binary}`);
  return binary;
}

/** Every .node file under a folder. */
function nodeFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.node'))
    .map((f) => join(dir, f));
}

/** Refuse a packaged app whose native modules would not load on its target; returns what was checked. */
export function verifyNativeModules(unpackedModules: string, os: BinaryOs, arch: BinaryArch, electronAbi: number): string[] {
  const problems: string[] = [];
  const keyring = keyringPackage(os, arch);
  if (nodeFiles(join(unpackedModules, ...keyring.split('/'))).length === 0) {
    const version = (() => {
      try {
        return (createRequire(join(unpackedModules, 'x.js'))('@napi-rs/keyring/package.json') as { version: string }).version;
      } catch {
        return 'the version of @napi-rs/keyring';
      }
    })();
    problems.push(
      `${keyring} is not in the app, so it would have no keychain on ${os}-${arch}. npm installs only the host's platform ` +
        `package: build each platform and CPU on a machine of its own (one architecture per run), or add it to node_modules ` +
        `first (npm install --no-save --force ${keyring}@${version}).`,
    );
  }
  const binaries = nodeFiles(unpackedModules);
  for (const file of binaries) {
    const { target, abi } = readBinary(file);
    const name = file.slice(unpackedModules.length + 1);
    if (target.os !== os || !target.archs.includes(arch)) problems.push(`${name} is built for ${target.os}-${target.archs.join('+')}, not ${os}-${arch}`);
    if (abi !== null && abi !== electronAbi) problems.push(`${name} is built for NODE_MODULE_VERSION ${abi}, Electron needs ${electronAbi}`);
  }
  if (!binaries.some((f) => basename(f) === 'better_sqlite3.node')) problems.push('better_sqlite3.node is not in app.asar.unpacked');
  if (problems.length > 0) throw new Error(`the packaged app's native modules would not load:\n  - ${problems.join('\n  - ')}`);
  return binaries;
}

export default async function afterPack(context: PackContext): Promise<void> {
  const arch = ARCHS[context.arch];
  const os = OS_OF[context.electronPlatformName];
  // A universal macOS app is merged from the x64 and arm64 apps, which were each checked already.
  if (arch === 'universal' || arch === undefined || os === undefined) return;
  const { projectDir, framework } = context.packager.info;
  const electronVersion = framework.version;
  const unpacked = join(context.packager.getResourcesDir(context.appOutDir), 'app.asar.unpacked', 'node_modules');
  const built = await buildForElectron(projectDir, electronVersion, os, arch, context.packager.config.buildDependenciesFromSource === true);
  copyFileSync(built, join(unpacked, 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'));
  const { getAbi } = createRequire(join(projectDir, 'node_modules', '@electron', 'rebuild', 'package.json'))('node-abi') as { getAbi(version: string, runtime: string): string };
  const checked = verifyNativeModules(unpacked, os, arch, Number(getAbi(electronVersion, 'electron')));
  process.stdout.write(`  • native modules for Electron ${electronVersion} ${os}-${arch}: ${checked.map((f) => basename(f)).join(', ')}\n`);
}
