// The built-in function families. To add a family: create functions/<family>.ts exporting a FunctionSpec[] (see
// registry.ts for the pattern), add it to FAMILIES below, and add its cases to test/dtl-cases/<family>.ts.

import { FunctionRegistry, type FunctionSpec } from '../registry.js';
import { comparisonFunctions } from './comparisons.js';
import { conditionalFunctions } from './conditionals.js';
import { datetimeFunctions } from './datetime.js';
import { dictionaryFunctions } from './dictionaries.js';
import { listFunctions } from './lists.js';
import { logicFunctions } from './logic.js';
import { miscFunctions } from './misc.js';
import { nullFunctions } from './nulls.js';
import { numberFunctions } from './numbers.js';
import { stringFunctions } from './strings.js';
import { transformFunctions } from './transforms.js';
import { setFunctions } from './sets.js';
import { mathFunctions } from './math.js';
import { identifierFunctions } from './identifiers.js';
import { webFunctions } from './web.js';
import { joinFunctions } from './joins.js';

export const FAMILIES: readonly (readonly FunctionSpec[])[] = [
  transformFunctions,
  logicFunctions,
  comparisonFunctions,
  conditionalFunctions,
  nullFunctions,
  listFunctions,
  dictionaryFunctions,
  stringFunctions,
  numberFunctions,
  datetimeFunctions,
  miscFunctions,
  setFunctions,
  mathFunctions,
  identifierFunctions,
  webFunctions,
  joinFunctions,
];

/** The registry the compiler uses by default. */
export const registry = new FunctionRegistry(FAMILIES);
