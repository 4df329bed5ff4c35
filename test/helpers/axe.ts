// axe-core (the dev dependency) run inside a page opened with playwright-core. Its source is evaluated in the page
// rather than added as a <script>: the workbench's CSP allows scripts only from the hub.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The WCAG 2.0, 2.1 and 2.2 A and AA rules. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  /** CSS selectors of the offending elements (the first few) with axe's explanation of the first. */
  targets: string[];
  summary: string;
}

/** The critical and serious violations of WCAG A/AA rules in the page (or under `selector`). */
export async function axeViolations(page: Page, selector?: string): Promise<AxeFinding[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(AXE_SOURCE);
  // A string, not a function: the tests compile without the DOM library.
  const run = `(async () => {
    const result = await window.axe.run(${selector === undefined ? 'document' : JSON.stringify(selector)}, { runOnly: { type: 'tag', values: ${JSON.stringify(TAGS)} }, resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => ({
        rule: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.slice(0, 5).map((n) => n.target.map(String).join(' ')),
        summary: (v.nodes[0] && v.nodes[0].failureSummary) || '',
      }));
  })()`;
  return page.evaluate<AxeFinding[]>(run);
}

/** Findings as readable lines for an assertion message. */
export function describeFindings(findings: readonly AxeFinding[]): string {
  return findings.map((f) => `${f.impact} ${f.rule} (${f.help}): ${f.targets.join(' | ')}\n    ${f.summary.replace(/\n/g, '\n    ')}`).join('\n');
}
