// Shapes of the DTL function test tables (see test/hub-core/dtl/dtl-functions.test.ts for how they run).
import type { JsonObject, JsonValue } from '../../../../hub-core/base/index.js';

export interface ExpressionCase {
  expr: JsonValue;
  source?: JsonObject;
  rules?: JsonObject;
  result?: JsonValue;
  error?: RegExp;
}

export interface TransformCase {
  rules: JsonValue;
  source?: JsonObject;
  result?: JsonObject[];
  error?: RegExp;
}

export type ExpressionTable = Record<string, ExpressionCase[]>;
export type TransformTable = Record<string, TransformCase[]>;
