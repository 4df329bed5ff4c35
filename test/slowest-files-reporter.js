// A node:test reporter that prints, after a run, the files that took longest (the wall time of each file's
// process, from its test:summary), so the suite's costs show per file. run.js adds it beside the spec reporter.
// It ends with a plain "N passed, N failed, N skipped" line, so the run's last line still gives its counts.
// DATAHUB_TEST_SLOWEST=N lists N files (0: none).
const TOP = Number(process.env.DATAHUB_TEST_SLOWEST ?? 20);

export default async function* slowestFiles(source) {
  const files = new Map();
  let total;
  for await (const event of source) {
    if (event.type !== 'test:summary') continue;
    if (event.data.file) files.set(event.data.file, { ms: event.data.duration_ms, tests: event.data.counts.tests, ok: event.data.success });
    else total = event.data.counts;
  }
  if (files.size > 1 && TOP > 0) {
    const root = process.cwd().replace(/\/?$/, '/');
    yield `\nslowest test files (wall time of each file's process; ${files.size} files):\n`;
    for (const [file, { ms, tests, ok }] of [...files].sort((a, b) => b[1].ms - a[1].ms).slice(0, TOP)) {
      const name = file.startsWith(root) ? file.slice(root.length) : file;
      yield `${(ms / 1000).toFixed(1).padStart(7)} s ${String(tests).padStart(4)} tests  ${ok ? '' : 'FAILED '}${name}\n`;
    }
  }
  if (total) yield `\ntests: ${total.passed} passed, ${total.failed + total.cancelled} failed, ${total.skipped} skipped\n`;
}
