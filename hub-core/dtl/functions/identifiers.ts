// The identifiers family of DTL functions.

import type { FunctionSpec } from '../registry.js';

export const identifierFunctions: FunctionSpec[] = [];
