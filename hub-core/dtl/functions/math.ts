// The math family of DTL functions.

import type { FunctionSpec } from '../registry.js';

export const mathFunctions: FunctionSpec[] = [];
