// The web family of DTL functions.

import type { FunctionSpec } from '../registry.js';

export const webFunctions: FunctionSpec[] = [];
