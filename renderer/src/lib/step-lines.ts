// Where the rule steps of a pipe configuration are in its text, for breakpoints in the editor's glyph margin: every
// element of a rule set ("$.transform.rules.<name>[i]", also in chains and conditional alternatives) with its offset.
import type { Node, Segment } from 'jsonc-parser';
import { hubPath } from './monaco-paths';

export interface StepPlace {
  /** The hub JSON path of the step, as the step-through names it. */
  path: string;
  offset: number;
  length: number;
}

/** The rule steps under "transform", in text order. */
export function stepPlaces(root: Node): StepPlace[] {
  const out: StepPlace[] = [];
  const walk = (node: Node, segments: Segment[]): void => {
    const n = segments.length;
    if (n >= 4 && segments[0] === 'transform' && segments[n - 3] === 'rules' && typeof segments[n - 2] === 'string' && typeof segments[n - 1] === 'number') {
      if (node.type === 'array') out.push({ path: hubPath(segments), offset: node.offset, length: node.length });
      return;
    }
    if (node.type === 'object') {
      for (const prop of node.children ?? []) {
        const [key, value] = prop.children ?? [];
        if (key && value && typeof key.value === 'string') walk(value, [...segments, key.value]);
      }
    } else if (node.type === 'array') {
      (node.children ?? []).forEach((c, i) => walk(c, [...segments, i]));
    }
  };
  walk(root, []);
  return out;
}

/** The step a click on a line means: the one starting on it, else the innermost one spanning it. */
export function stepAtLine(places: readonly StepPlace[], lineOf: (offset: number) => number, line: number): StepPlace | undefined {
  const starting = places.find((p) => lineOf(p.offset) === line);
  if (starting) return starting;
  const spanning = places.filter((p) => lineOf(p.offset) <= line && lineOf(p.offset + p.length) >= line);
  return spanning.sort((a, b) => a.length - b.length)[0];
}

/** The 1-based line of a text offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
