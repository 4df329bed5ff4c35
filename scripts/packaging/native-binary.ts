// What a native module binary was built for, read from its header: the OS (ELF, Mach-O or PE), the CPU,
// and for V8 addons the Node/Electron ABI its registration symbol names. The installer build uses it to
// refuse an app whose native modules would not load on the machine it is meant for.
import { readFileSync } from 'node:fs';

export type BinaryOs = 'linux' | 'darwin' | 'win32';
export type BinaryArch = 'x64' | 'arm64' | 'ia32' | 'armv7l';

export interface BinaryTarget {
  os: BinaryOs;
  /** More than one for a macOS universal (fat) binary. */
  archs: BinaryArch[];
}

const ELF_MACHINES: Record<number, BinaryArch> = { 0x3e: 'x64', 0xb7: 'arm64', 0x03: 'ia32', 0x28: 'armv7l' };
const MACHO_CPUS: Record<number, BinaryArch> = { 0x01000007: 'x64', 0x0100000c: 'arm64', 0x07: 'ia32', 0x0c: 'armv7l' };
const PE_MACHINES: Record<number, BinaryArch> = { 0x8664: 'x64', 0xaa64: 'arm64', 0x14c: 'ia32', 0x1c4: 'armv7l' };

function known<T>(table: Record<number, T>, key: number, what: string): T {
  const value = table[key];
  if (value === undefined) throw new Error(`unknown ${what} 0x${key.toString(16)}`);
  return value;
}

export function binaryTarget(bytes: Buffer): BinaryTarget {
  if (bytes.length >= 20 && bytes.readUInt32BE(0) === 0x7f454c46) {
    const littleEndian = bytes[5] === 1;
    const machine = littleEndian ? bytes.readUInt16LE(18) : bytes.readUInt16BE(18);
    return { os: 'linux', archs: [known(ELF_MACHINES, machine, 'ELF machine')] };
  }
  const magic = bytes.readUInt32LE(0);
  if (magic === 0xfeedfacf || magic === 0xfeedface) return { os: 'darwin', archs: [known(MACHO_CPUS, bytes.readUInt32LE(4), 'Mach-O CPU')] };
  if (bytes.readUInt32BE(0) === 0xcafebabe) {
    const count = bytes.readUInt32BE(4);
    const archs = Array.from({ length: count }, (_, i) => known(MACHO_CPUS, bytes.readUInt32BE(8 + i * 20), 'Mach-O CPU'));
    return { os: 'darwin', archs };
  }
  if (bytes.toString('latin1', 0, 2) === 'MZ') {
    const pe = bytes.readUInt32LE(0x3c);
    if (bytes.toString('latin1', pe, pe + 4) !== 'PE\0\0') throw new Error('an MZ file without a PE header');
    return { os: 'win32', archs: [known(PE_MACHINES, bytes.readUInt16LE(pe + 4), 'PE machine')] };
  }
  throw new Error('not an ELF, Mach-O or PE binary');
}

/**
 * The NODE_MODULE_VERSION a V8 addon was compiled for (from its node_register_module_v<N> symbol), or
 * null for a Node-API addon, which loads in any runtime and names no ABI.
 */
export function moduleAbi(bytes: Buffer): number | null {
  const match = /node_register_module_v(\d+)/.exec(bytes.toString('latin1'));
  return match ? Number(match[1]) : null;
}

export function readBinary(file: string): { target: BinaryTarget; abi: number | null } {
  const bytes = readFileSync(file);
  return { target: binaryTarget(bytes), abi: moduleAbi(bytes) };
}

/**
 * The @napi-rs/keyring platform package that @napi-rs/keyring loads on a platform and CPU (see its
 * index.js); Linux builds are glibc (gnu) builds, which is what AppImage and .deb run on.
 */
export function keyringPackage(os: BinaryOs, arch: BinaryArch): string {
  const suffix: Record<BinaryOs, Partial<Record<BinaryArch, string>>> = {
    darwin: { x64: 'darwin-x64', arm64: 'darwin-arm64' },
    win32: { x64: 'win32-x64-msvc', arm64: 'win32-arm64-msvc', ia32: 'win32-ia32-msvc' },
    linux: { x64: 'linux-x64-gnu', arm64: 'linux-arm64-gnu', armv7l: 'linux-arm-gnueabihf' },
  };
  const name = suffix[os][arch];
  if (!name) throw new Error(`@napi-rs/keyring has no build for ${os}-${arch}`);
  return `@napi-rs/keyring-${name}`;
}
