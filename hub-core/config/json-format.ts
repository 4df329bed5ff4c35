// The text of configuration files. New files get the layout of the service's own tooling (`sesam format`): keys in
// the conventional order, objects opened on their key's line, lists of values on one line and each list inside a list
// on a line of its own (how DTL rules read). A file that already exists keeps its text where its content did not
// change, so saving one edited property changes only the lines around it, whatever layout the user chose.

import { canonicalJson, isJsonObject } from '../base/index.js';

/** Keys the service's tooling puts first, in this order; other keys follow in code point order. */
const CONVENTIONAL_KEYS = [
  '_id', 'type', 'name',
  // source, transform, sink: the order data flows in, as the service's tools lay out a new pipe.
  'source', 'transform', 'sink', 'pump', 'metadata',
  'system',
  'datasets', 'where', 'return', 'recurse', 'max_depth', 'exclude_root', 'track-dependencies', 'trace',
  'default',
];
const RANK = new Map(CONVENTIONAL_KEYS.map((k, i) => [k, i]));

function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function compareKeys(a: string, b: string): number {
  const ra = RANK.get(a);
  const rb = RANK.get(b);
  if (ra !== undefined && rb !== undefined) return ra - rb;
  if (ra !== undefined) return -1;
  if (rb !== undefined) return 1;
  return compareCodePoints(a, b);
}

/** An object's keys in the layout's order. */
export function conventionalKeyOrder(keys: readonly string[]): string[] {
  return [...keys].sort(compareKeys);
}

// A raw JSON value (a transform's float literal, config-json.ts) is written as the number it stands for.
const isObject = (v: unknown): v is Record<string, unknown> => isJsonObject(v);

/**
 * One value in the layout. `level` counts the indent units of the line the value starts on; `inList` says the value
 * is an element of a list (an object there does not indent its keys a second time, and closes one unit left).
 */
function layout(value: unknown, level: number, inList: boolean, newline: (level: number) => string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = level + 1;
    let out = '[';
    value.forEach((item, i) => {
      if (Array.isArray(item)) out += (i === 0 ? '' : ',') + newline(inner);
      else if (i > 0) out += ', ';
      out += layout(item, inner, true, newline);
    });
    return out + (Array.isArray(value[value.length - 1]) ? newline(level) : '') + ']';
  }
  if (isObject(value)) {
    const keys = conventionalKeyOrder(Object.keys(value).filter((k) => value[k] !== undefined));
    if (keys.length === 0) return '{}';
    const inner = inList ? level : level + 1;
    const members = keys.map((k) => newline(inner) + JSON.stringify(k) + ': ' + layout(value[k], inner, false, newline));
    return '{' + members.join(',') + newline(inList ? level - 1 : level) + '}';
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

const indenter = (base: string, unit: string) => (level: number): string => '\n' + base + unit.repeat(Math.max(0, level));

/** A whole file's text in the layout of the service's tooling (`sesam format`), two-space indent, final newline. */
export function sesamLayout(value: unknown): string {
  return layout(value, 0, false, indenter('', '  ')) + '\n';
}

// ---- Keeping an existing file's text -------------------------------------------------------------------------

interface Scalar { kind: 'scalar'; start: number; end: number }
interface List { kind: 'list'; start: number; end: number; items: Node[] }
interface Member { key: string; keyStart: number; keyEnd: number; value: Node }
interface Obj { kind: 'object'; start: number; end: number; members: Member[] }
type Node = Scalar | List | Obj;

class Unparsable extends Error {}

/** A JSON text's values with where each starts and ends (the values themselves come from JSON.parse). */
function parseTree(text: string): { root: Node; end: number } {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const string = (): void => {
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) throw new Unparsable('unterminated string');
    i++;
  };
  const value = (depth: number): Node => {
    if (depth > 512) throw new Unparsable('too deep');
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const members: Member[] = [];
      ws();
      if (text[i] === '}') return { kind: 'object', start, end: ++i, members };
      for (;;) {
        ws();
        if (text[i] !== '"') throw new Unparsable('expected a key');
        const keyStart = i;
        string();
        const keyEnd = i;
        ws();
        if (text[i] !== ':') throw new Unparsable('expected a colon');
        i++;
        members.push({ key: JSON.parse(text.slice(keyStart, keyEnd)) as string, keyStart, keyEnd, value: value(depth + 1) });
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') return { kind: 'object', start, end: ++i, members };
        throw new Unparsable('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const items: Node[] = [];
      ws();
      if (text[i] === ']') return { kind: 'list', start, end: ++i, items };
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') return { kind: 'list', start, end: ++i, items };
        throw new Unparsable('expected , or ]');
      }
    }
    if (c === '"') {
      string();
      return { kind: 'scalar', start, end: i };
    }
    while (i < text.length && !/[\s,\]}:]/.test(text[i]!)) i++;
    if (i === start) throw new Unparsable('expected a value');
    return { kind: 'scalar', start, end: i };
  };
  const root = value(0);
  return { root, end: i };
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** The whitespace that starts the line `pos` is on. */
function lineIndent(text: string, pos: number): string {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** The indent after a separator's last line break, or undefined when it has none. */
function indentAfterBreak(sep: string): string | undefined {
  const at = sep.lastIndexOf('\n');
  return at < 0 ? undefined : /^[ \t]*/.exec(sep.slice(at + 1))![0];
}

/** The smallest indent step the file uses (a tab when its lines start with tabs); two spaces when it has none. */
function indentUnit(text: string): string {
  let smallest: string | undefined;
  for (const m of text.matchAll(/\n([ \t]+)\S/g)) {
    const w = m[1]!;
    if (w.startsWith('\t')) return '\t';
    if (smallest === undefined || w.length < smallest.length) smallest = w;
  }
  return smallest ?? '  ';
}

/** Pairs of (old index, new index) of the longest run of equal elements both lists share, in order. */
function commonElements(a: readonly unknown[], b: readonly unknown[]): [number, number][] {
  const ka = a.map((v) => canonicalJson(v));
  const kb = b.map((v) => canonicalJson(v));
  if (ka.length * kb.length > 4_000_000) {
    const pairs: [number, number][] = [];
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) if (ka[i] === kb[i]) pairs.push([i, i]);
    return pairs;
  }
  const n = ka.length;
  const m = kb.length;
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i]![j] = ka[i] === kb[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (ka[i] === kb[j]) pairs.push([i++, j++]);
    else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

class Patcher {
  private readonly unit: string;

  constructor(private readonly text: string) {
    this.unit = indentUnit(text);
  }

  /** A value not in the file yet, laid out in the service's layout from the indent of the line it goes on. */
  private fresh(value: unknown, base: string, inList: boolean): string {
    const nl = indenter(base, this.unit);
    return isObject(value) && inList ? layout(value, 1, true, nl) : layout(value, 0, false, nl);
  }

  /** The text of `node` (which holds `before`) changed to hold `after`, keeping every part that did not change. */
  patch(node: Node, before: unknown, after: unknown, inList: boolean): string {
    const text = this.text;
    if (same(before, after)) return text.slice(node.start, node.end);
    if (node.kind === 'object' && node.members.length > 0 && isObject(before) && isObject(after)) return this.patchObject(node, before, after);
    if (node.kind === 'list' && node.items.length > 0 && Array.isArray(before) && Array.isArray(after) && after.length > 0) return this.patchList(node, before, after);
    return this.fresh(after, lineIndent(text, node.start), inList);
  }

  private patchObject(node: Obj, before: Record<string, unknown>, after: Record<string, unknown>): string {
    const text = this.text;
    const members = node.members;
    if (new Set(members.map((m) => m.key)).size !== members.length) throw new Unparsable('duplicate keys');
    const lead = text.slice(node.start + 1, members[0]!.keyStart);
    const seps = members.map((m, i) => (i === 0 ? '' : text.slice(members[i - 1]!.value.end, m.keyStart)));
    const trail = text.slice(members[members.length - 1]!.value.end, node.end - 1);
    const sep = seps[1] ?? (lead.includes('\n') ? ',' + lead : ', ');
    const colon = text.slice(members[0]!.keyEnd, members[0]!.value.start);
    const base = indentAfterBreak(sep) ?? lineIndent(text, members[0]!.keyStart);

    // Keys kept in the file's order; new keys where the layout's order puts them when the file follows it, else
    // after the key they follow in the new content.
    const oldKeys = members.map((m) => m.key);
    const order = oldKeys.filter((k) => after[k] !== undefined);
    const conventional = oldKeys.every((k, i) => i === 0 || compareKeys(oldKeys[i - 1]!, k) < 0);
    const newKeys = Object.keys(after).filter((k) => after[k] !== undefined);
    for (const [n, k] of newKeys.entries()) {
      if (order.includes(k)) continue;
      let at: number;
      if (conventional) {
        at = order.findIndex((o) => compareKeys(k, o) < 0);
        if (at < 0) at = order.length;
      } else {
        const prev = newKeys.slice(0, n).reverse().find((p) => order.includes(p));
        at = prev === undefined ? 0 : order.indexOf(prev) + 1;
      }
      order.splice(at, 0, k);
    }
    if (order.length === 0) return '{}';
    let out = '{';
    order.forEach((k, i) => {
      const j = oldKeys.indexOf(k);
      const m = j >= 0 ? members[j] : undefined;
      out += i === 0 ? lead : m && j > 0 ? seps[j] : sep;
      if (m) out += text.slice(m.keyStart, m.keyEnd) + text.slice(m.keyEnd, m.value.start) + this.patch(m.value, before[k], after[k], false);
      else out += JSON.stringify(k) + colon + this.fresh(after[k], base, false);
    });
    return out + trail + '}';
  }

  private patchList(node: List, before: unknown[], after: unknown[]): string {
    const text = this.text;
    const items = node.items;
    if (items.length !== before.length) throw new Unparsable('list length');
    const lead = text.slice(node.start + 1, items[0]!.start);
    const seps = items.map((it, i) => (i === 0 ? '' : text.slice(items[i - 1]!.end, it.start)));
    const trail = text.slice(items[items.length - 1]!.end, node.end - 1);
    // The separator a new element gets: the one before an old element of its kind (a list, or anything else).
    const sepFor = (value: unknown): { sep: string; base: string } => {
      const like = items.findIndex((_, i) => i > 0 && Array.isArray(before[i]) === Array.isArray(value));
      const j = like >= 0 ? like : items.length > 1 ? 1 : -1;
      const sep = j > 0 ? seps[j]! : Array.isArray(value) && lead.includes('\n') ? ',' + lead : ', ';
      return { sep, base: indentAfterBreak(sep) ?? lineIndent(text, items[Math.max(j, 0)]!.start) };
    };

    // Old elements matched to new ones: equal ones kept, the rest paired in order between them (and patched).
    const result: { old?: number; value: unknown }[] = [];
    let oi = 0;
    let ni = 0;
    const gap = (oEnd: number, nEnd: number): void => {
      while (oi < oEnd && ni < nEnd) result.push({ old: oi++, value: after[ni++] });
      while (ni < nEnd) result.push({ value: after[ni++] });
      oi = oEnd;
    };
    for (const [o, n] of commonElements(before, after)) {
      gap(o, n);
      result.push({ old: oi++, value: after[ni++] });
    }
    gap(before.length, after.length);

    let out = '[';
    result.forEach((r, i) => {
      if (r.old !== undefined) {
        out += i === 0 ? lead : r.old > 0 ? seps[r.old] : sepFor(r.value).sep;
        out += this.patch(items[r.old]!, before[r.old], r.value, true);
      } else {
        const { sep, base } = sepFor(r.value);
        out += i === 0 ? lead : sep;
        out += this.fresh(r.value, i === 0 ? indentAfterBreak(lead) ?? base : base, true);
      }
    });
    return out + trail + ']';
  }
}

/**
 * The text a configuration file should hold for `value`, given the text it holds now (undefined for a new file):
 * the same text when the content is the same; the service's layout for a new file or one already in that layout;
 * otherwise the file's own text with only the changed values replaced.
 */
export function updatedFileText(previous: string | undefined, value: unknown): string {
  if (previous === undefined) return sesamLayout(value);
  const bom = previous.startsWith('\uFEFF') ? '\uFEFF' : '';
  const crlf = previous.includes('\r\n');
  const text = (bom ? previous.slice(1) : previous).replace(/\r\n/g, '\n');
  let before: unknown;
  try {
    before = JSON.parse(text);
  } catch {
    return sesamLayout(value);
  }
  if (same(before, value)) return previous;
  let out: string;
  if (text === sesamLayout(before)) {
    out = sesamLayout(value);
  } else {
    try {
      const { root, end } = parseTree(text);
      out = text.slice(0, root.start) + new Patcher(text).patch(root, before, value, false) + text.slice(end);
      if (!same(JSON.parse(out), value)) out = sesamLayout(value);
    } catch (err) {
      if (!(err instanceof Unparsable) && !(err instanceof SyntaxError)) throw err;
      out = sesamLayout(value);
    }
  }
  return bom + (crlf ? out.replace(/\n/g, '\r\n') : out);
}
