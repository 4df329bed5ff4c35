// A JUnit XML report of `datahub test` (--junit <file>), the format CI systems read test results from: one testsuite,
// one testcase per expected/<name>.test.json, a <failure> with the diff for a failed one, <skipped/> for an ignored one.

export interface JunitCase {
  name: string;
  classname: string;
  status: 'passed' | 'failed' | 'ignored';
  /** For a failure: the first line is its message, all of it its text. */
  failure?: string[];
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
    const open = `    <testcase classname="${escape(c.classname)}" name="${escape(c.name)}"`;
    if (c.status === 'passed') lines.push(`${open}/>`);
    else if (c.status === 'ignored') lines.push(`${open}>`, '      <skipped message="ignored in its .test.json"/>', '    </testcase>');
    else {
      const text = c.failure ?? ['failed'];
      lines.push(`${open}>`, `      <failure message="${escape(text[0] ?? 'failed')}">${escape(text.join('\n'))}</failure>`, '    </testcase>');
    }
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
