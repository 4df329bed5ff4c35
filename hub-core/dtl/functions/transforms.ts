// Transform functions: they change the target entity `_T` (or stop the rule set) and return no value.
// They live in transform-*.ts by what they do; the registry lists them in this order.

import type { FunctionSpec } from '../registry.js';
import { propertyTransforms } from './transform-properties.js';
import { entityTransforms } from './transform-entities.js';
import { flowTransforms } from './transform-flow.js';

export const transformFunctions: FunctionSpec[] = [...propertyTransforms, ...entityTransforms, ...flowTransforms];
