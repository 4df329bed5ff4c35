// The sets family of DTL functions.

import type { FunctionSpec } from '../registry.js';

export const setFunctions: FunctionSpec[] = [];
