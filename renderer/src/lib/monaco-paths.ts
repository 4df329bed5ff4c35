// The hub reports config problems by JSON path ("$.transform.rules.default[0][2][0]", '$.a["odd key"]'); the
// editor needs the text range of that element. Missing elements fall back to their nearest existing parent.
import { findNodeAtLocation, type Node, type Segment } from 'jsonc-parser';

/** The segments of a hub JSON path, or null when it is not one. */
export function parseConfigPath(path: string): Segment[] | null {
  if (!path.startsWith('$')) return null;
  const segments: Segment[] = [];
  let i = 1;
  while (i < path.length) {
    if (path[i] === '.') {
      const m = /^[^.[\]]+/.exec(path.slice(i + 1));
      if (!m) return null;
      segments.push(m[0]);
      i += 1 + m[0].length;
    } else if (path[i] === '[') {
      const rest = path.slice(i);
      const index = /^\[(\d+)\]/.exec(rest);
      const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
      if (index) {
        segments.push(Number(index[1]));
        i += index[0].length;
      } else if (quoted) {
        segments.push(JSON.parse(quoted[1]!) as string);
        i += quoted[0].length;
      } else return null;
    } else return null;
  }
  return segments;
}

/** The node a path points at, or its deepest existing ancestor; for a property value the key is included. */
export function nodeForPath(root: Node, segments: readonly Segment[]): Node {
  for (let n = segments.length; n > 0; n--) {
    const node = findNodeAtLocation(root, segments.slice(0, n));
    if (node) return node;
  }
  return root;
}

/** Text offsets [start, end) to underline for a path: a short node whole, a long one on its first line only. */
export function rangeForPath(root: Node, path: string, text: string): { start: number; end: number } {
  const segments = parseConfigPath(path) ?? [];
  const node = nodeForPath(root, segments);
  const exact = segments.length === 0 || findNodeAtLocation(root, segments) !== undefined;
  // A missing property is shown on its parent's key, so the squiggle sits where it would go.
  const target = !exact && node.parent?.type === 'property' ? node.parent.children?.[0] ?? node : node;
  const start = target.offset;
  let end = target.offset + target.length;
  const newline = text.indexOf('\n', start);
  if (newline !== -1 && newline < end) end = newline;
  return { start, end: Math.max(end, start + 1) };
}

/** The hub JSON path of jsonc-parser path segments ("$.transform.rules.default[0]"). */
export function hubPath(segments: readonly Segment[]): string {
  let out = '$';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += /^[A-Za-z_$][\w$:-]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`;
  }
  return out;
}
