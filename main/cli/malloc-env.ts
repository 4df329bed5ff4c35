// glibc's malloc settings for a hub's process, defined once: the desktop app gives them to the hub it starts
// (main/electron/app-args.ts), and a terminal `datahub serve` gives them to itself (bin/datahub.js re-executes the
// process once with them, see withHubMallocEnv).

/**
 * At most two arenas, and allocations from 128 KB on mapped and unmapped one by one (other C libraries ignore these).
 * By default every thread that allocates (parser workers, SQLite, libuv) may get an arena of its own that keeps what was
 * freed in it, and large buffers freed once raise the size from which later ones are mapped. Four concurrent 50 MB
 * pushes left the hub 641 MB resident (259 MB before); with these, 549 MB (252 MB before), the thread arenas gone
 * (test/bench/concurrent-push-bench.ts).
 */
export const HUB_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/** Set to "0" to run `datahub serve` with the C library's own defaults (a comparison, or a reason we do not foresee). */
export const HUB_MALLOC_SWITCH = 'DATAHUB_HUB_MALLOC';

/** Whether this process runs on glibc (the only C library that reads these settings). */
function onGlibc(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const report = process.report as NodeJS.ProcessReport & { excludeNetwork?: boolean };
    // The network part of a report takes most of its time (a lookup per open socket), and says nothing of the C library.
    report.excludeNetwork = true;
    const header = (report.getReport() as { header?: { glibcVersionRuntime?: string } }).header;
    return typeof header?.glibcVersionRuntime === 'string';
  } catch {
    return false;
  }
}

/**
 * The environment this hub process should have been started with, when it lacks any of the malloc settings (a user's
 * own value of one is kept); undefined when nothing is missing, or they would not apply. glibc reads them only when a
 * process starts, so the process must start again to get them.
 */
export function withHubMallocEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv | undefined {
  if (env[HUB_MALLOC_SWITCH] === '0') return undefined;
  const missing = Object.keys(HUB_MALLOC_ENV).filter((k) => env[k] === undefined);
  if (missing.length === 0 || !onGlibc()) return undefined;
  return { ...HUB_MALLOC_ENV, ...env };
}

/**
 * Start this process again, with the same pid, arguments and open files, with the malloc settings in its environment
 * (process.execve replaces the program; it returns only where it cannot, and then the hub runs as it is). Not in an
 * Electron process nor one with an IPC channel: the desktop app sets the environment of the hub it starts.
 */
export function reexecWithHubMallocEnv(): void {
  if (process.versions['electron'] !== undefined || typeof process.send === 'function') return;
  const env = withHubMallocEnv(process.env);
  const execve = (process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }).execve;
  if (env === undefined || typeof execve !== 'function') return;
  try {
    execve.call(process, process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], env);
  } catch {
    // Not allowed here (a sandbox, say): the hub runs with the C library's defaults.
  }
}
