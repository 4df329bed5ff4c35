// A DTL trace (trace-types.ts) in words, for `datahub dtl run --trace`: per entity what became of it, where each
// property came from, then the steps with their sub-expressions' values, branches, look-ups and created entities.

import type { JsonValue } from '../base/index.js';
import type { EntityTrace, TraceNode, TracePropertyEvent } from './trace-types.js';

function short(v: JsonValue | undefined, truncated?: boolean): string {
  const text = JSON.stringify(v ?? null);
  const cut = text.length > 80 ? text.slice(0, 77) + '...' : text;
  return truncated ? `${cut} (shortened)` : cut;
}

function outcomeText(t: EntityTrace): string {
  switch (t.outcome) {
    case 'output':
      return 'output';
    case 'filtered':
      return 'filtered out (output as deleted)';
    case 'discarded':
      return 'discarded (nothing output)';
    case 'no-id':
      return 'dropped: the target has no string _id';
    case 'error':
      return `failed: ${t.error?.msg ?? ''}${t.error?.elements ? ` (at ${t.error.elements})` : ''}`;
  }
}

function eventText(e: TracePropertyEvent): string {
  if (e.step === -1 && e.name === '(source)') return 'from the source entity';
  if (e.name === '(filter)') return `by the filter${e.at ? ` at ${e.at}` : ''}`;
  return `${e.action === 'set' ? 'set' : 'removed'} by ${e.name} at ${e.at}`;
}

function nodeLines(n: TraceNode, indent: string, out: string[]): void {
  let line: string;
  if (n.kind === 'lookup' && n.lookup) {
    const l = n.lookup;
    const more = l.count > l.matched.length ? `, ... (${l.count} in all)` : '';
    line = `look-up in ${l.dataset} by ${l.by}, keys ${short(l.keys)}: ${l.count === 0 ? 'nothing matched' : `${l.count} matched (${l.matched.join(', ')}${more})`}`;
  } else if (n.kind === 'step') {
    const parts: string[] = [];
    for (const c of n.changes ?? []) parts.push(c.action === 'set' ? `set ${c.property} = ${short(c.value, c.truncated)}` : `removed ${c.property}`);
    if (n.created) parts.push(`created ${n.created.map((id) => JSON.stringify(id)).join(', ')}`);
    if (n.branch) parts.push(`took ${n.branch.label}`);
    if (n.stop) parts.push(`stopped the rules (${n.stop})`);
    if (n.error) parts.push(`failed: ${n.error}`);
    line = `${n.name} at ${n.at}${n.level > 0 ? ` (nested rule set, level ${n.level})` : ''}${parts.length ? ': ' + parts.join('; ') : ''}`;
  } else if (n.kind === 'literal') {
    return;
  } else {
    line = `${n.name} → ${n.error ? `failed: ${n.error}` : short(n.value, n.truncated)}${n.branch ? ` (took ${n.branch.label})` : ''}`;
  }
  out.push(indent + line);
  for (const c of n.children ?? []) nodeLines(c, indent + '  ', out);
  if (n.omitted) out.push(`${indent}  ... ${n.omitted} more not recorded (trace limits)`);
}

/** One entity's trace in words, as lines. */
export function traceInWords(t: EntityTrace): string[] {
  const out: string[] = [];
  out.push(`Entity ${JSON.stringify(t.source)} through the transform at ${t.at}: ${outcomeText(t)}`);
  if (t.stoppedBy) out.push(`  stopped by ${t.stoppedBy.name} at ${t.stoppedBy.at}: ${t.stoppedBy.reason}`);
  const props = Object.entries(t.properties);
  if (props.length > 0) {
    out.push('  Properties:');
    for (const [name, events] of props) {
      const last = events[events.length - 1] as TracePropertyEvent;
      const now = last.action === 'set' ? `= ${short(last.value, last.truncated)}` : '(removed)';
      const earlier = events.length > 1 ? ` (before: ${events.slice(0, -1).map(eventText).join(', ')})` : '';
      out.push(`    ${name} ${now}  ${eventText(last)}${earlier}`);
    }
  }
  if (t.created.length > 0) {
    out.push('  Created entities:');
    for (const c of t.created) out.push(`    ${JSON.stringify(c._id)} by the step at ${c.at}`);
  }
  out.push('  Steps:');
  if (t.steps.length === 0) out.push('    (none ran)');
  for (const s of t.steps) nodeLines(s, '    ', out);
  if (t.truncated) out.push(`  (the trace limits left parts out; ${t.nodes} nodes recorded)`);
  return out;
}
