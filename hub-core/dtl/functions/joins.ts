// The joins family of DTL functions.

import type { FunctionSpec } from '../registry.js';

export const joinFunctions: FunctionSpec[] = [];
