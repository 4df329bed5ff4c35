// A JUnit XML report of `datahub test` (--junit <file>), the format CI systems read test results from: one testsuite,
// one testcase per expected/<name>.test.json, a <failure> with the diff for a failed one, <skipped/> for an ignored one.

export interface JunitCase {
  name: string;
  classname: string;
  status: 'passed' | 'failed' | 'ignored';
  /** For a failure: the first line is its message, all of it its text. */
  failure?: string[];
  /** The pipes the test ran and how long each took: the case's time and its properties. */
  pipes?: readonly { pipe: string; ms?: number; runs: number }[];
}

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!)
    // XML 1.0 has no place for most control characters; a diff of odd data must not make the report unreadable.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export function junitReport(suite: string, cases: readonly JunitCase[], seconds: number): string {
  const failures = cases.filter((c) => c.status === 'failed').length;
  const skipped = cases.filter((c) => c.status === 'ignored').length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escape(suite)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}" time="${seconds.toFixed(3)}">`,
    `  <testsuite name="${escape(suite)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}" errors="0" time="${seconds.toFixed(3)}">`,
  ];
  for (const c of cases) {
    const ms = (c.pipes ?? []).reduce((sum, p) => sum + (p.ms ?? 0), 0);
    const open = `    <testcase classname="${escape(c.classname)}" name="${escape(c.name)}"${c.pipes !== undefined ? ` time="${(ms / 1000).toFixed(3)}"` : ''}`;
    // One property per pipe the test ran: its id, milliseconds and runs.
    const props =
      c.pipes === undefined || c.pipes.length === 0
        ? []
        : ['      <properties>', ...c.pipes.map((p) => `        <property name="pipe ${escape(p.pipe)}" value="${p.ms ?? 0} ms, ${p.runs} run(s)"/>`), '      </properties>'];
    if (c.status === 'passed' && props.length === 0) lines.push(`${open}/>`);
    else if (c.status === 'passed') lines.push(`${open}>`, ...props, '    </testcase>');
    else if (c.status === 'ignored') lines.push(`${open}>`, ...props, '      <skipped message="ignored in its .test.json"/>', '    </testcase>');
    else {
      const text = c.failure ?? ['failed'];
      lines.push(`${open}>`, ...props, `      <failure message="${escape(text[0] ?? 'failed')}">${escape(text.join('\n'))}</failure>`, '    </testcase>');
    }
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
