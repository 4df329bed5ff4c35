// electron-builder's afterPack hook (electron-builder.yml), run once per platform and architecture after
// the app's files are in place and before the installer is made and signed.
//
// Nothing is rebuilt: better-sqlite3 (13 and later) and @napi-rs/keyring ship prebuilt Node-API binaries,
// which load in Node and in Electron alike. What can still go wrong is packaging for another OS or CPU than
// the binaries that ended up in the app (npm installs the keychain binding for the host only), so this hook
// reads every native binary the app ships and refuses the build when one would not load on the target.
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { keyringPackage, readBinary, type BinaryArch, type BinaryOs } from './native-binary.js';

/** The part of electron-builder's AfterPackContext this hook reads. */
export interface PackContext {
  appOutDir: string;
  electronPlatformName: string;
  /** builder-util's Arch enum: 0 ia32, 1 x64, 2 armv7l, 3 arm64, 4 universal. */
  arch: number;
  packager: {
    info: { projectDir: string; framework: { version: string } };
    getResourcesDir(appOutDir: string): string;
  };
}

const ARCHS = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'] as const;
const OS_OF: Record<string, BinaryOs> = { darwin: 'darwin', mas: 'darwin', win32: 'win32', linux: 'linux' };

/** better-sqlite3's file name for a target's prebuilt binary (its lib/binding.js; AppImage and .deb are glibc). */
export function sqlitePrebuild(os: BinaryOs, arch: BinaryArch): string {
  return join('better-sqlite3', 'prebuilds', `${os}-${arch}.node`);
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
  if (!existsSync(join(unpackedModules, sqlitePrebuild(os, arch)))) problems.push(`${sqlitePrebuild(os, arch)} is not in app.asar.unpacked: the app would have no SQLite on ${os}-${arch}`);
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
  // A V8 (non-Node-API) addon would have to match Electron's ABI; node-abi comes with electron-builder.
  const { getAbi } = createRequire(join(projectDir, 'node_modules', '@electron', 'rebuild', 'package.json'))('node-abi') as { getAbi(version: string, runtime: string): string };
  const checked = verifyNativeModules(unpacked, os, arch, Number(getAbi(electronVersion, 'electron')));
  process.stdout.write(`  • native modules for Electron ${electronVersion} ${os}-${arch}: ${checked.map((f) => basename(f)).join(', ')}\n`);
}
