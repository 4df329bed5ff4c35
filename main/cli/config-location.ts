// Where a pipe's problem sits in its file: the pipe's file (relative to the project) and the line of the first JSON
// path the message names ("$.transform.rules.default[1][2]"), for `datahub test`/`run` to print as `file:line`.
import { findNodeAtLocation, parseTree, type Node, type Segment } from 'jsonc-parser';
import { readTextFile } from '../../hub-core/base/index.js';

/** The first hub JSON path in a message, or undefined. */
export function firstConfigPath(message: string): string | undefined {
  return /\$(?:\.[^\s.:[\]]+|\[(?:\d+|"(?:[^"\\]|\\.)*")\])+/.exec(message)?.[0];
}

/** The segments of a hub JSON path ("$.a[0]['b']" forms as the hub writes them). */
function segments(path: string): Segment[] {
  const out: Segment[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (let m = re.exec(path); m !== null; m = re.exec(path)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(JSON.parse(m[3]!) as string);
  }
  return out;
}

/**
 * The 1-based line in `file` of the component `id` (a file may hold a list of components) and, within it, of the
 * element at the message's first JSON path (or its nearest existing parent); undefined when the file cannot be read.
 */
export function problemLine(file: string, id: string, message: string): number | undefined {
  let text: string;
  try {
    text = readTextFile(file);
  } catch {
    return undefined;
  }
  const root = parseTree(text);
  if (root === undefined) return undefined;
  let entity: Node | undefined = root;
  if (root.type === 'array') entity = root.children?.find((c) => c.type === 'object' && findNodeAtLocation(c, ['_id'])?.value === id);
  if (entity === undefined) return undefined;
  const path = firstConfigPath(message);
  let node = entity;
  if (path !== undefined) {
    const segs = segments(path);
    for (let n = segs.length; n > 0; n--) {
      const found = findNodeAtLocation(entity, segs.slice(0, n));
      if (found !== undefined) {
        node = found;
        break;
      }
    }
  }
  return text.slice(0, node.offset).split('\n').length;
}
