// The cases of `datahub test` as a developer's loop (issue 35), for bench.ts: the time from a saved one-pipe change
// to the watch result (watch-bench.ts) and the speed-up of isolated test groups side by side over one after the other
// (isolated-bench.ts), both measured in this run.
import { runWatchBench, watchBenchRows } from './watch-bench.js';
import { isolatedBenchRows, runIsolatedBench } from './isolated-bench.js';

export async function runTestLoopBench(): Promise<{ rows: string[][]; problems: string[] }> {
  const watch = await runWatchBench();
  const isolated = await runIsolatedBench();
  const rows = [...watchBenchRows(watch), ...isolatedBenchRows(isolated)];
  for (const r of rows) console.log(`${r[0]}: ${r[2]} s, ${r[4]}`);
  return { rows, problems: isolated.problems };
}
