// Namespaced identifiers: ni, ni-ns, ni-id, is-ni; and the namespace helpers other families and the pipe runner use.
//
// A namespaced identifier (NI) is written "~:ns:id" ("~:id" in the global namespace). The namespace is everything
// before the first colon of the body, the identifier everything after it ("~:foo:x:y" is "x:y" in "foo").
//
// With the service metadata's `namespaced_identifiers` on, a pipe has an identity namespace and a property namespace
// (both default to the pipe id). The helpers at the end of this file implement what that changes:
//   - property names get the property namespace and `_id` values the identity namespace (`applyNamespaces`, also the
//     `apply-ns` function, and `stripNamespaces` the other way);
//   - `$ids` lists an entity's identities as NIs (`addEntityIds`);
//   - path elements that are not fully qualified match the property in every namespace (paths.ts: `path` and path
//     strings), with the escapes "::name" (exactly "name") and ":name" (name in the current property namespace).
// The pipe runner turns this on for a run with `setRunNamespaces(state, settings)`.

import type { RunState } from '../context.js';
import type { NamespaceSettings } from '../namespace-settings.js';
import { isPathString } from '../paths.js';
import { expression, valuesFunction, one, optional, type FunctionSpec } from '../registry.js';
import { Ni, Uri, firstOf, isDict, isPlainString, mapValues, setProperty, typedOf, type DtlDict, type DtlValue } from '../values.js';
import { firstString } from './util.js';

const FAMILY = 'identifiers';

// ---------------------------------------------------------------------------------------------------------------------
// Namespace settings of a run

export type { NamespaceSettings } from '../namespace-settings.js';

interface RunNamespaces {
  readonly settings: NamespaceSettings;
  /** URI prefix -> namespace, declared and generated. */
  readonly byPrefix: Map<string, string>;
  generated: number;
}

/** The namespaces every run knows: "_" stands for http://example.org/ unless the service metadata says otherwise. */
const DEFAULT_PREFIXES: Readonly<Record<string, string>> = { _: 'http://example.org/' };

const runNamespaces = new WeakMap<RunState, RunNamespaces>();
const DEFAULT_RUN: RunNamespaces = { settings: { enabled: false, identityNamespace: null, propertyNamespace: null }, byPrefix: prefixMap(undefined), generated: 0 };

function prefixMap(prefixes: Readonly<Record<string, string>> | undefined): Map<string, string> {
  const m = new Map<string, string>();
  for (const [ns, prefix] of Object.entries({ ...DEFAULT_PREFIXES, ...(prefixes ?? {}) })) m.set(prefix, ns);
  return m;
}

/** Turn namespace handling on (or configure it) for every evaluation that uses `state`. */
export function setRunNamespaces(state: RunState, settings: NamespaceSettings): void {
  runNamespaces.set(state, { settings, byPrefix: prefixMap(settings.prefixes), generated: 0 });
}

/** The namespace settings of a run (namespaced identifiers off when the runner set none). */
export function namespacesOf(state: RunState): NamespaceSettings {
  return (runNamespaces.get(state) ?? DEFAULT_RUN).settings;
}

/**
 * A URI as a namespaced identifier: the URI is split after its last "/" or "#"; a declared prefix gives its namespace,
 * another prefix a generated one ("<pipe id>-<n>", only when the run knows its pipe id). Undefined when neither works.
 */
export function collapseUri(state: RunState | undefined, uri: string): Ni | undefined {
  const cut = Math.max(uri.lastIndexOf('/'), uri.lastIndexOf('#'));
  if (cut < 0) return undefined;
  const prefix = uri.slice(0, cut + 1);
  const local = uri.slice(cut + 1);
  const run = (state === undefined ? undefined : runNamespaces.get(state)) ?? DEFAULT_RUN;
  let ns = run.byPrefix.get(prefix);
  if (ns === undefined) {
    const pipeId = run.settings.pipeId;
    if (pipeId === undefined || run === DEFAULT_RUN) return undefined;
    ns = `${pipeId}-${++run.generated}`;
    run.byPrefix.set(prefix, ns);
  }
  return Ni.of(ns, local);
}

// ---------------------------------------------------------------------------------------------------------------------
// Property names and identifiers

/** The namespace part of a name ("foo" of "foo:bar"), or "" when it has none. */
export function namespacePart(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? '' : name.slice(0, i);
}

/** The identifier part of a name ("bar" of "foo:bar"; the name itself when it has no namespace). */
export function identifierPart(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

/** How `apply-ns` (and a pipe with add_namespaces) namespaces an entity. */
export interface ApplyNamespaceOptions {
  readonly propertyNamespace: string | null;
  readonly identityNamespace: string | null;
  /** Leave properties starting with "_" alone (except that the `_id` value gets the identity namespace). */
  readonly skipUnderscore: boolean;
  /** Leave properties starting with "$" (and their values) alone. */
  readonly skipDollar: boolean;
  /** Also namespace dicts inside values (and inside lists). */
  readonly recursive: boolean;
}

function namespaceValue(v: DtlValue, o: ApplyNamespaceOptions): DtlValue {
  if (isDict(v)) return applyNamespaces(v, o);
  if (Array.isArray(v)) return v.map((x) => namespaceValue(x, o));
  return v;
}

/**
 * A copy of the dict with namespaced property names: an unqualified name (no colon) becomes "<property ns>:<name>",
 * a string `_id` value becomes "<identity ns>:<id>". Names that already have a namespace are kept.
 */
export function applyNamespaces(d: DtlDict, o: ApplyNamespaceOptions): DtlDict {
  const out: DtlDict = {};
  for (const key of Object.keys(d)) {
    let value = d[key] as DtlValue;
    if (key === '_id' && o.identityNamespace !== null && isPlainString(value)) value = `${o.identityNamespace}:${value}`;
    const first = key.charCodeAt(0);
    if (first === 36 /* $ */ && o.skipDollar) {
      setProperty(out, key, value);
      continue;
    }
    if (o.recursive) value = namespaceValue(value, o);
    const keep = (first === 95 /* _ */ && o.skipUnderscore) || key.includes(':') || o.propertyNamespace === null;
    setProperty(out, keep ? key : `${o.propertyNamespace}:${key}`, value);
  }
  return out;
}

/** A copy of the dict (and of the dicts inside it) with the namespaces taken off property names ("foo:bar" -> "bar"). */
export function stripNamespaces(v: DtlValue): DtlValue {
  if (Array.isArray(v)) return v.map(stripNamespaces);
  if (!isDict(v)) return v;
  const out: DtlDict = {};
  for (const key of Object.keys(v)) setProperty(out, identifierPart(key), stripNamespaces(v[key] as DtlValue));
  return out;
}

/**
 * The entity's identities for `$ids` (namespaced identifiers on): the NIs already in `$ids` plus the NI of the string
 * `_id`, without duplicates. The runner writes the result into `$ids` of each output entity.
 */
export function entityIds(entity: DtlDict): string[] {
  const out: string[] = [];
  const add = (s: string): void => {
    if (!out.includes(s)) out.push(s);
  };
  const ids = entity['$ids'];
  for (const x of Array.isArray(ids) ? ids : ids === undefined || ids === null ? [] : [ids]) {
    const t = typedOf(x);
    if (t instanceof Ni) add(t.tagged());
    else if (isPlainString(x)) add('~:' + x);
  }
  const id = entity['_id'];
  if (isPlainString(id) && id !== '') add('~:' + id);
  return out;
}

/** Set `$ids` on an entity from `entityIds` (does nothing for an entity without a string `_id` or `$ids`). */
export function addEntityIds(entity: DtlDict): void {
  const ids = entityIds(entity);
  if (ids.length > 0) setProperty(entity, '$ids', ids);
}

// ---------------------------------------------------------------------------------------------------------------------
// The functions

function niOf(v: DtlValue): Ni | undefined {
  const t = typedOf(v);
  return t instanceof Ni ? t : undefined;
}

/** The name an NI or a plain string stands for ("ns:id"), or undefined for other values. */
function nameOf(v: DtlValue): string | undefined {
  if (isPlainString(v)) return v;
  return niOf(v)?.body;
}

/** ni-ns and ni-id: one part of each namespaced identifier or "ns:id" string; other values are left out. */
function nameParts(spec: { name: string; description: string; examples: FunctionSpec['examples']; part: (name: string) => string }): FunctionSpec {
  return valuesFunction({
    name: spec.name,
    family: FAMILY,
    description: spec.description,
    examples: spec.examples,
    json: 'yes',
    make: (values) => (ctx) =>
      mapValues(values(ctx), (x) => {
        const name = nameOf(x);
        return name === undefined ? undefined : spec.part(name);
      }),
  });
}

export const identifierFunctions: FunctionSpec[] = [
  expression({
    name: 'ni',
    family: FAMILY,
    params: [optional('NAMESPACE', 'value'), one('VALUES', 'value')],
    description: 'Each string as a namespaced identifier in NAMESPACE (the global namespace when omitted); without NAMESPACE, URIs are collapsed by their prefix.',
    examples: [
      { expression: ['ni', 'foo', 'bar'], result: '~:foo:bar' },
      { expression: ['ni', 'bar'], result: '~:bar' },
      { expression: ['ni', 'foo', ['list', 'bar', 'x:y']], result: ['~:foo:bar', '~:foo:x:y'] },
      { expression: ['ni', 'foo', ['uri', 'http://example.org/']], result: null },
      { expression: ['ni', ['uri', 'http://example.org/bar']], result: '~:_:bar' },
    ],
    compile(b, cc) {
      const nsArg = b.opt('NAMESPACE');
      const values = cc.expr(b.one('VALUES'));
      if (nsArg === undefined) {
        return (ctx) =>
          mapValues(values(ctx), (x) => {
            if (isPlainString(x)) return x === '' ? undefined : new Ni(x);
            const t = typedOf(x);
            if (t instanceof Ni) return t;
            return t instanceof Uri ? collapseUri(ctx.run, t.uri) : undefined;
          });
      }
      const cast = (ns: string, x: DtlValue): Ni | undefined => (isPlainString(x) ? Ni.of(ns, x) : undefined);
      const text = nsArg.node;
      // A path (e.g. "_S.type") or any other expression (["concat", "fhir-", "_S.type"]) as NAMESPACE is evaluated per
      // entity, as real projects on the service do; any other string (also "_") is the namespace itself.
      if (typeof text !== 'string' || (text !== '_' && isPathString(text))) {
        const ns = cc.expr(nsArg);
        return (ctx) => {
          const n = firstString(ns(ctx));
          return n === undefined ? null : mapValues(values(ctx), (x) => cast(n, x));
        };
      }
      return (ctx) => mapValues(values(ctx), (x) => cast(text, x));
    },
  }),

  nameParts({
    name: 'ni-ns',
    description: 'The namespace part of each namespaced identifier or "ns:id" string ("" when there is none); other values are left out.',
    examples: [
      { expression: ['ni-ns', '~:foo:bar'], result: 'foo' },
      { expression: ['ni-ns', 'foo:bar'], result: 'foo' },
      { expression: ['ni-ns', 'foo'], result: '' },
      { expression: ['ni-ns', ['list', '~:foo:bar', '~:bar:baz']], result: ['foo', 'bar'] },
    ],
    part: namespacePart,
  }),

  nameParts({
    name: 'ni-id',
    description: 'The identifier part of each namespaced identifier or "ns:id" string (the whole string when it has no namespace); other values are left out.',
    examples: [
      { expression: ['ni-id', '~:foo:bar'], result: 'bar' },
      { expression: ['ni-id', 'foo:bar'], result: 'bar' },
      { expression: ['ni-id', 'bar'], result: 'bar' },
      { expression: ['ni-id', ['list', '~:foo:bar', '~:bar:baz']], result: ['bar', 'baz'] },
    ],
    part: identifierPart,
  }),

  expression({
    name: 'is-ni',
    family: FAMILY,
    params: [one('VALUES', 'value')],
    description: 'True when the value (or the first element of a list) is a namespaced identifier.',
    examples: [
      { expression: ['is-ni', ['ni', 'foo:bar']], result: true },
      { expression: ['is-ni', 'foo:bar'], result: false },
      { expression: ['is-ni', ['list', ['ni', 'foo:bar'], 12345]], result: true },
      { expression: ['is-ni', ['list', 1, ['ni', 'foo:bar']]], result: false },
    ],
    json: 'yes',
    compile(b, cc) {
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => niOf(firstOf(values(ctx))) !== undefined;
    },
  }),
];
