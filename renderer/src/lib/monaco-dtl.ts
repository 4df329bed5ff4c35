// DTL inside the JSON config editor: function-name completions where a DTL call starts (`["` inside a transform's
// rules) and hover documentation on function names, both from the hub's function catalogue.
import { getLocation, type Location, type Node } from 'jsonc-parser';
import type * as Monaco from 'monaco-editor/editor/editor.api';
import type { ExampleDoc, FunctionDoc } from '../../../hub-core/dtl/index';

type MonacoApi = typeof Monaco;

interface CallSite {
  /** True when the call is a rule step (a transform function), false inside an expression. */
  step: boolean;
  /** The function-name string node, when there is one under the cursor. */
  name: Node | undefined;
}

/** Index of the "rules" segment of a transform's rules in a config path, or -1. */
function rulesIndex(path: Location['path']): number {
  for (let k = path.length - 1; k >= 1; k--) {
    if (path[k] !== 'rules') continue;
    if (path[k - 1] === 'transform' || (typeof path[k - 1] === 'number' && path[k - 2] === 'transform')) return k;
  }
  return -1;
}

/**
 * Where a DTL function name goes: the first element of an array inside a transform's rules. `root` is the path of the
 * text in a configuration: [] for a whole configuration entity, ["transform"] for a pipe's transform alone.
 */
export function dtlCallSite(text: string, offset: number, root: Location['path'] = []): CallSite | null {
  const location = getLocation(text, offset);
  const path = [...root, ...location.path];
  if (location.isAtPropertyKey || path[path.length - 1] !== 0) return null;
  const k = rulesIndex(path);
  // rules, <rule set>, <step>, 0 at least.
  if (k < 0 || path.length < k + 4) return null;
  const prev = location.previousNode;
  const name = prev && prev.type === 'string' && offset > prev.offset && offset <= prev.offset + prev.length ? prev : undefined;
  return { step: path.length === k + 4, name };
}

function exampleText(e: ExampleDoc): string {
  const lines = ['```json', JSON.stringify(e.expression)];
  if (e.source !== undefined) lines.push(`// with _S = ${JSON.stringify(e.source)}`);
  if (e.result !== undefined) lines.push(`// → ${JSON.stringify(e.result)}`);
  else if (e.error !== undefined) lines.push(`// error: ${e.error}`);
  lines.push('```');
  return lines.join('\n');
}

export function functionMarkdown(doc: FunctionDoc): string {
  const parts = [`**${doc.name}** (${doc.kind} function, ${doc.family})`, `\`${doc.name}(${doc.signature})\``, doc.description];
  const example = doc.examples[0];
  if (example) parts.push(exampleText(example));
  return parts.join('\n\n');
}

export function registerDtlLanguageFeatures(monaco: MonacoApi, functions: readonly FunctionDoc[]): void {
  const byName = new Map(functions.map((f) => [f.name, f]));
  /** A model holding a pipe's transform alone (named "*.transform.json") is rooted at "transform". */
  const rootOf = (model: Monaco.editor.ITextModel): Location['path'] => (model.uri.path.endsWith('.transform.json') ? ['transform'] : []);

  monaco.languages.registerCompletionItemProvider('json', {
    triggerCharacters: ['"', '['],
    provideCompletionItems(model, position) {
      const text = model.getValue();
      const offset = model.getOffsetAt(position);
      const site = dtlCallSite(text, offset, rootOf(model));
      if (!site) return { suggestions: [] };
      // Inside a string: replace its contents; after a bare "[": insert a quoted name.
      const quoted = site.name !== undefined;
      const start = quoted ? site.name!.offset + 1 : offset;
      const end = quoted ? Math.max(start, site.name!.offset + site.name!.length - 1) : offset;
      const range = monaco.Range.fromPositions(model.getPositionAt(start), model.getPositionAt(end));
      const wanted = site.step ? 'transform' : 'expression';
      return {
        suggestions: functions.map((f) => ({
          label: { label: f.name, description: f.family },
          kind: f.kind === 'transform' ? monaco.languages.CompletionItemKind.Method : monaco.languages.CompletionItemKind.Function,
          detail: `${f.name}(${f.signature})`,
          documentation: { value: functionMarkdown(f) },
          insertText: quoted ? f.name : JSON.stringify(f.name),
          filterText: quoted ? f.name : JSON.stringify(f.name),
          sortText: `${f.kind === wanted ? '0' : '1'}${f.name}`,
          range,
        })),
      };
    },
  });

  monaco.languages.registerHoverProvider('json', {
    provideHover(model, position) {
      const offset = model.getOffsetAt(position);
      const site = dtlCallSite(model.getValue(), offset, rootOf(model));
      const node = site?.name;
      if (!node || typeof node.value !== 'string') return null;
      const doc = byName.get(node.value);
      if (!doc) return null;
      return {
        range: monaco.Range.fromPositions(model.getPositionAt(node.offset), model.getPositionAt(node.offset + node.length)),
        contents: [{ value: functionMarkdown(doc) }],
      };
    },
  });
}
