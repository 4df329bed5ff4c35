// `datahub dtl functions [<search>] [--json]`: the DTL function reference in words. Without a search word, one line
// per function (name, what it does); with one, every function whose name, family or description holds it, in full:
// signature, parameters and examples with their results. --json prints the catalogue as JSON (all of it).
import { parseArgs } from 'node:util';
import { functionCatalogue, type FunctionDoc } from '../../hub-core/dtl/index.js';

const firstSentence = (text: string): string => {
  const one = text.replace(/\s*\n\s*/g, ' ').trim();
  const end = one.search(/\.(\s|$)/);
  return end < 0 ? one : one.slice(0, end + 1);
};

function detail(f: FunctionDoc): string[] {
  const lines = [`${f.name}  (${f.kind === 'transform' ? 'transform function' : 'expression function'}, ${f.family})`, `  ${f.signature}`];
  for (const line of f.description.trim().split(/\n+/)) lines.push(`  ${line.trim()}`);
  if (f.params.length > 0) {
    lines.push('  Parameters:');
    for (const p of f.params) lines.push(`    ${p.name}: ${p.type} {${p.cardinality}}`);
  }
  for (const e of f.examples) {
    lines.push(`  Example: ${JSON.stringify(e.expression)}`);
    if (e.source !== undefined) lines.push(`    on ${JSON.stringify(e.source)}`);
    if (e.result !== undefined) lines.push(`    gives ${JSON.stringify(e.result)}`);
    if (e.error !== undefined) lines.push(`    fails: ${e.error}`);
    if (e.note !== undefined) lines.push(`    (${e.note})`);
  }
  return lines;
}

/** The reference as text; exit code 1 when a search finds nothing. */
export function functionsText(args: string[]): { text: string; code: number } {
  const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  const all = functionCatalogue();
  if (values.json === true) return { text: JSON.stringify(all, null, 2) + '\n', code: 0 };
  const word = positionals.join(' ').trim().toLowerCase();
  if (word === '') {
    const width = Math.max(...all.map((f) => f.name.length));
    const lines = all.map((f) => `${f.name.padEnd(width)}  ${firstSentence(f.description)}`);
    return { text: `${all.length} DTL functions (datahub dtl functions <word> for details, --json for the catalogue):\n${lines.join('\n')}\n`, code: 0 };
  }
  const exact = all.filter((f) => f.name === word);
  const found = exact.length > 0 ? exact : all.filter((f) => `${f.name} ${f.family} ${f.description}`.toLowerCase().includes(word));
  if (found.length === 0) return { text: `No DTL function matches ${JSON.stringify(word)}.\n`, code: 1 };
  return { text: found.map((f) => detail(f).join('\n')).join('\n\n') + '\n', code: 0 };
}
