// The `profiler=true` option of the `start` operation: a CPU profile of the hub's thread while the run goes, written
// to the logs folder as a .cpuprofile (opens in Chrome DevTools or VS Code) and a .calltree (callgrind format, opens in
// KCachegrind/QCachegrind), and one of each pipe worker that carried (a share of) the run or its transform, named
// -worker1, -worker2… (thread-profiler.ts samples each thread). Each samples its whole thread, so other work done meanwhile on
// it shows up too.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { conflict } from '../base/index.js';
import { ThreadProfiler } from './thread-profiler.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** One profiled run at a time: the inspector's profiler belongs to the whole process. */
export class RunProfiler {
  private session: ThreadProfiler | undefined;
  private owner: string | undefined;
  /** The profiles the run's pipe workers sent back, in the order they came. */
  private workerProfiles: object[] = [];

  constructor(private readonly logsDir: string) {}

  /** Refuse a second profiled run while one is being profiled. */
  checkFree(pipeId: string): void {
    if (this.owner !== undefined) {
      throw conflict(`a run of pipe ${JSON.stringify(this.owner)} is being profiled`, `start ${JSON.stringify(pipeId)} without the profiler, or when that run has ended`);
    }
  }

  /** Reserve the profiler for a run (synchronously, so two requests cannot both get it). */
  reserve(pipeId: string): void {
    this.checkFree(pipeId);
    this.owner = pipeId;
    this.workerProfiles = [];
  }

  /** A pipe worker's profile of its part in the profiled run (ignored when no run is profiled). */
  addWorkerProfile(profile: object): void {
    if (this.owner !== undefined) this.workerProfiles.push(profile);
  }

  async begin(): Promise<void> {
    this.session = new ThreadProfiler();
    await this.session.ready();
  }

  /** Stop profiling and write the files; answers their paths (none when profiling never began). */
  async end(pipeId: string, start: Date): Promise<string[]> {
    const session = this.session;
    this.session = undefined;
    try {
      const profile = await session?.stop();
      if (profile === undefined) return [];
      mkdirSync(this.logsDir, { recursive: true });
      const base = join(this.logsDir, `${fileSafe(pipeId)}-${stamp(start)}`);
      const files = writeProfile(base, profile, pipeId);
      this.workerProfiles.forEach((p, i) => files.push(...writeProfile(`${base}-worker${i + 1}`, p, `${pipeId} (pipe worker ${i + 1})`)));
      return files;
    } finally {
      this.owner = undefined;
      this.workerProfiles = [];
    }
  }
}

/** A profile as a .cpuprofile and a .calltree beside it: their paths. */
function writeProfile(base: string, profile: object, title: string): string[] {
  writeFileSync(`${base}.cpuprofile`, JSON.stringify(profile));
  writeFileSync(`${base}.calltree`, callgrind(profile as CpuProfile, title));
  return [`${base}.cpuprofile`, `${base}.calltree`];
}

/** A pipe id as part of a file name: characters file systems refuse are percent-encoded. */
function fileSafe(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** 20240131T120102.345Z: sortable, no colons. */
function stamp(t: Date): string {
  return t.toISOString().replace(/[-:]/g, '');
}

/** A V8 CPU profile in callgrind format: self and inclusive time per call in microseconds. */
export function callgrind(profile: CpuProfile, title: string): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  if (samples.length > 0) {
    // timeDeltas[i] is the time before sample i: the time after a sample belongs to it.
    for (let i = 0; i < samples.length; i++) self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + Math.max(0, deltas[i + 1] ?? 0));
  } else {
    const total = profile.endTime - profile.startTime;
    const hits = profile.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0) || 1;
    for (const n of profile.nodes) self.set(n.id, ((n.hitCount ?? 0) * total) / hits);
  }
  const inclusive = new Map<number, number>();
  const total = (id: number): number => {
    const known = inclusive.get(id);
    if (known !== undefined) return known;
    // Iterative post-order: call trees of deep recursion must not overflow the stack.
    const stack: [number, boolean][] = [[id, false]];
    while (stack.length > 0) {
      const [n, done] = stack.pop()!;
      const node = byId.get(n);
      if (!node) continue;
      if (done) {
        inclusive.set(n, (self.get(n) ?? 0) + (node.children ?? []).reduce((s, c) => s + (inclusive.get(c) ?? 0), 0));
      } else {
        stack.push([n, true]);
        for (const c of node.children ?? []) if (!inclusive.has(c)) stack.push([c, false]);
      }
    }
    return inclusive.get(id) ?? 0;
  };
  const file = (f: CallFrame): string => f.url || '(native)';
  const name = (f: CallFrame): string => f.functionName || '(anonymous)';
  const lines = ['# callgrind format', 'version: 1', 'creator: datahub-desktop', `cmd: pump run of ${title}`, 'positions: line', 'events: Microseconds', ''];
  for (const node of profile.nodes) {
    const f = node.callFrame;
    const line = Math.max(0, f.lineNumber) + 1;
    lines.push(`fl=${file(f)}`, `fn=${name(f)}`, `${line} ${Math.round(self.get(node.id) ?? 0)}`);
    for (const c of node.children ?? []) {
      const child = byId.get(c);
      if (!child) continue;
      const cost = Math.round(total(c));
      if (cost === 0) continue;
      lines.push(`cfl=${file(child.callFrame)}`, `cfn=${name(child.callFrame)}`, `calls=1 ${Math.max(0, child.callFrame.lineNumber) + 1}`, `${line} ${cost}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}
