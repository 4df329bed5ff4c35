// The function registry: every DTL function is declared once, as data plus a compile function. The compiler checks
// calls against the declared parameters, and the catalogue (catalogue.ts) publishes the same declarations.
//
// Declaring a function (in the family file under functions/):
//
//   export const stringFunctions: FunctionSpec[] = [
//     expression({
//       name: 'upper',
//       family: 'strings',
//       params: [one('VALUES', 'value')],
//       description: 'Upper-cases every string; other values are dropped.',
//       examples: [{ expression: ['upper', ['list', 'a', 'b']], result: ['A', 'B'] }],
//       json: 'yes',
//       compile: (b, cc) => {
//         const values = cc.expr(b.one('VALUES'));
//         return (ctx) => mapValues(values(ctx), (v) => (isPlainString(v) ? v.toUpperCase() : undefined));
//       },
//     }),
//   ];
//
// The compile function runs once per call site; it compiles its arguments with the CompileContext and returns the
// closure that runs per entity. Arguments arrive already checked for count and shape.

import type { JsonObject, JsonValue } from '../base/index.js';
import type { Expr, Tx } from './context.js';
import type { NamespaceSettings } from './namespace-settings.js';

/** How many arguments a parameter takes. */
export type Cardinality = '1' | '0|1' | '>=0' | '>=1';

/**
 * What an argument must look like.
 * - value: any value expression; boolean: one whose truthiness is used; function: evaluated once per value with `_`
 *   bound; default: evaluated with `_` bound to a value that could not be converted; integer: an integer expression
 * - string: a literal string; wildcard: a literal pattern with * and ?; wildcard-list: a pattern, or a list of them
 *   (a literal list or ["list", ...]); property: a literal property name, or an expression giving names
 * - transforms: one transform function or a list of them; rule-id: the name of a rule set of the same transform
 * - literal: any JSON, not evaluated
 */
export type ArgType =
  | 'value'
  | 'boolean'
  | 'function'
  | 'default'
  | 'integer'
  | 'string'
  | 'wildcard'
  | 'wildcard-list'
  | 'property'
  | 'transforms'
  | 'rule-id'
  | 'literal';

export interface ParamSpec {
  readonly name: string;
  readonly type: ArgType;
  readonly card: Cardinality;
}

export const one = (name: string, type: ArgType): ParamSpec => ({ name, type, card: '1' });
export const optional = (name: string, type: ArgType): ParamSpec => ({ name, type, card: '0|1' });
export const zeroOrMore = (name: string, type: ArgType): ParamSpec => ({ name, type, card: '>=0' });
export const oneOrMore = (name: string, type: ArgType): ParamSpec => ({ name, type, card: '>=1' });

/**
 * An example of a function, checked by the tests and shown by the UI. For an expression function, `expression` is
 * evaluated with `source` as `_S` and must give `result`. For a transform function, `expression` is run as the only
 * rule of a `default` rule set on `source` (default `{"_id": "1"}`) and `result` lists the output entities. `error`
 * instead of `result` means the example must fail with a message containing that text.
 */
export interface FunctionExample {
  readonly expression: JsonValue;
  readonly source?: JsonObject;
  /** Named rule sets the example may `apply`. */
  readonly rules?: JsonObject;
  readonly result?: JsonValue;
  readonly error?: string;
  readonly note?: string;
}

/** One argument: its JSON and its JSON path in the configuration. */
export interface ArgNode {
  readonly node: unknown;
  readonly path: string;
}

/** The arguments of one call, assigned to the declared parameters. */
export interface BoundArgs {
  /** JSON path of the whole call. */
  readonly at: string;
  readonly args: readonly ArgNode[];
  one(name: string): ArgNode;
  opt(name: string): ArgNode | undefined;
  many(name: string): readonly ArgNode[];
}

/** Whether a compiled expression's values are plain JSON: always, when the context's source is, or unknown. */
export type JsonMode = 'json' | 'source' | 'unknown';

/** A rule set as seen by `apply`; `run` is filled in once all rule sets are compiled. */
export interface RuleSetRef {
  readonly name: string;
  run: Tx;
  /** The join function the rule set calls ("hops" or "apply-hops"), if any: `apply` may not run such a rule set. */
  joins?: string;
}

/** What a function's compile step may use. */
export interface CompileContext {
  /** Compile an argument as a value expression (also used for boolean, function, default and integer arguments). */
  expr(arg: ArgNode): Expr;
  /** Compile a `transforms` argument: one transform or a list of them. */
  transforms(arg: ArgNode): Tx;
  /** The strings of a literal string, or of a literal ["list", "a", ...], or undefined if it is not static. */
  staticStrings(arg: ArgNode): string[] | undefined;
  /** The rule set an argument names; reports an error (and gives a no-op rule set) if there is none. */
  ruleSet(arg: ArgNode): RuleSetRef;
  /** How JSON-safe a compiled expression's values are. */
  jsonMode(e: Expr): JsonMode;
  /** The expression, wrapped so that its values are always encoded JSON (for writing into a target entity). */
  toJson(e: Expr): Expr;
  error(at: ArgNode | string, msg: string): void;
  warn(at: ArgNode | string, msg: string): void;
  /** The pipe's namespaces when namespaced identifiers are on (namespace-aware functions compile for them). */
  readonly namespaces: NamespaceSettings | undefined;
}

interface SpecBase {
  readonly name: string;
  /** Family, e.g. "strings"; one family per file under functions/. */
  readonly family: string;
  readonly params: readonly ParamSpec[];
  /** One line, in our own words. */
  readonly description: string;
  readonly examples: readonly FunctionExample[];
  /** Signature text for the catalogue when the parameter list cannot express it (e.g. repeated pairs). */
  readonly signature?: string;
  /** Extra check of the argument count; returns a message when the count is wrong. */
  readonly arity?: (count: number) => string | undefined;
}

export interface ExpressionSpec extends SpecBase {
  readonly kind: 'expression';
  /**
   * Whether results are plain JSON: 'yes' when the function only makes JSON values (numbers, strings, booleans, ...),
   * 'args' when it passes values of its arguments through (then it is as JSON-safe as they are). Default: unknown.
   */
  readonly json?: 'yes' | 'args';
  readonly compile: (args: BoundArgs, cc: CompileContext) => Expr;
}

export interface TransformSpec extends SpecBase {
  readonly kind: 'transform';
  readonly compile: (args: BoundArgs, cc: CompileContext) => Tx;
}

export type FunctionSpec = ExpressionSpec | TransformSpec;

export function expression(spec: Omit<ExpressionSpec, 'kind'>): ExpressionSpec {
  return { ...spec, kind: 'expression' };
}

/** The common shape of a function of one argument VALUES: `make` turns the compiled argument into the function. */
export function valuesFunction(spec: {
  name: string;
  family: string;
  description: string;
  examples: ExpressionSpec['examples'];
  json?: ExpressionSpec['json'];
  make: (values: Expr) => Expr;
}): ExpressionSpec {
  return expression({
    name: spec.name,
    family: spec.family,
    params: [one('VALUES', 'value')],
    description: spec.description,
    examples: spec.examples,
    ...(spec.json ? { json: spec.json } : {}),
    compile: (b, cc) => spec.make(cc.expr(b.one('VALUES'))),
  });
}

export function transform(spec: Omit<TransformSpec, 'kind'>): TransformSpec {
  return { ...spec, kind: 'transform' };
}

const TYPE_DOC: Record<ArgType, string> = {
  value: 'value-expression',
  boolean: 'boolean-expression',
  function: 'function-expression',
  default: 'default-value-expression',
  integer: 'integer-expression',
  string: 'string',
  wildcard: 'wildcard-string',
  'wildcard-list': 'wildcard-string-list',
  property: 'property',
  transforms: 'transforms',
  'rule-id': 'rule-id',
  literal: 'literal',
};

export function typeDoc(type: ArgType): string {
  return TYPE_DOC[type];
}

/** The signature in the documentation's notation, e.g. "FUNCTION(function-expression{0|1}), VALUES(value-expression{1})". */
export function signatureOf(spec: FunctionSpec): string {
  if (spec.signature !== undefined) return spec.signature;
  return spec.params.map((p) => `${p.name}(${TYPE_DOC[p.type]}{${p.card}})`).join(', ');
}

/** All functions, by kind and name. Families register in functions/index.ts. */
export class FunctionRegistry {
  private readonly expressions = new Map<string, ExpressionSpec>();
  private readonly transforms = new Map<string, TransformSpec>();
  private readonly order: FunctionSpec[] = [];

  constructor(families: readonly (readonly FunctionSpec[])[] = []) {
    for (const family of families) for (const spec of family) this.register(spec);
  }

  register(spec: FunctionSpec): void {
    const map: Map<string, FunctionSpec> = spec.kind === 'expression' ? this.expressions : this.transforms;
    if (map.has(spec.name)) throw new Error(`DTL ${spec.kind} function "${spec.name}" is declared twice`);
    const variadic = spec.params.filter((p) => p.card === '>=0' || p.card === '>=1').length;
    if (variadic > 1) throw new Error(`DTL function "${spec.name}" declares more than one variadic parameter`);
    if (spec.examples.length === 0) throw new Error(`DTL function "${spec.name}" has no example`);
    if (spec.kind === 'expression') this.expressions.set(spec.name, spec);
    else this.transforms.set(spec.name, spec);
    this.order.push(spec);
  }

  expression(name: string): ExpressionSpec | undefined {
    return this.expressions.get(name);
  }

  transform(name: string): TransformSpec | undefined {
    return this.transforms.get(name);
  }

  /** Every declared function, in declaration order. */
  all(): readonly FunctionSpec[] {
    return this.order;
  }

  /** Names of the functions of a kind, for suggestions. */
  names(kind: 'expression' | 'transform'): string[] {
    return [...(kind === 'expression' ? this.expressions : this.transforms).keys()];
  }
}
