// Table cases of the DTL identifiers functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const IDENTIFIERS: ExpressionTable = {};
