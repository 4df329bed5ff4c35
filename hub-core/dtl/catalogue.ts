// The function catalogue as plain data, for the UI and the documentation. It is generated from the same registry
// the compiler checks calls against, so the two cannot disagree.

import type { JsonObject, JsonValue } from '../base/index.js';
import { registry as defaultRegistry } from './functions/index.js';
import { signatureOf, typeDoc, type Cardinality, type FunctionRegistry } from './registry.js';

export interface ParamDoc {
  name: string;
  /** Argument type in the documentation's notation, e.g. "value-expression". */
  type: string;
  cardinality: Cardinality;
}

export interface ExampleDoc {
  expression: JsonValue;
  source?: JsonObject;
  rules?: JsonObject;
  result?: JsonValue;
  error?: string;
  note?: string;
}

export interface FunctionDoc {
  name: string;
  kind: 'expression' | 'transform';
  family: string;
  /** E.g. "FUNCTION(function-expression{0|1}), VALUES(value-expression{1})". */
  signature: string;
  params: ParamDoc[];
  description: string;
  examples: ExampleDoc[];
}

/** Every DTL function with its documentation, in declaration order (JSON-serialisable). */
export function functionCatalogue(registry: FunctionRegistry = defaultRegistry): FunctionDoc[] {
  return registry.all().map((spec) => ({
    name: spec.name,
    kind: spec.kind,
    family: spec.family,
    signature: signatureOf(spec),
    params: spec.params.map((p) => ({ name: p.name, type: typeDoc(p.type), cardinality: p.card })),
    description: spec.description,
    examples: spec.examples.map((e) => {
      const doc: ExampleDoc = { expression: e.expression };
      if (e.source !== undefined) doc.source = e.source;
      if (e.rules !== undefined) doc.rules = e.rules;
      if (e.result !== undefined) doc.result = e.result;
      if (e.error !== undefined) doc.error = e.error;
      if (e.note !== undefined) doc.note = e.note;
      return doc;
    }),
  }));
}
