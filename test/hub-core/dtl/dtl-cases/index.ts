// Every DTL function test table. A family's cases live in their own file, so families can grow independently.
import { LOGIC } from './logic.js';
import { COMPARISONS } from './comparisons.js';
import { CONDITIONALS } from './conditionals.js';
import { NULLS } from './nulls.js';
import { LISTS } from './lists.js';
import { DICTIONARIES } from './dictionaries.js';
import { STRINGS } from './strings.js';
import { NUMBERS } from './numbers.js';
import { DATETIME } from './datetime.js';
import { MISC } from './misc.js';
import { TRANSFORMS } from './transforms.js';
import { SETS } from './sets.js';
import { MATH } from './math.js';
import { IDENTIFIERS } from './identifiers.js';
import { WEB } from './web.js';
import { JOINS } from './joins.js';
import { DOC_EXAMPLES } from './doc-examples.js';
import { BIG_INTEGERS } from './big-integers.js';
import type { ExpressionTable, TransformTable } from './types.js';

const FAMILY_CASES: ExpressionTable = { ...LOGIC, ...COMPARISONS, ...CONDITIONALS, ...NULLS, ...LISTS, ...DICTIONARIES, ...STRINGS, ...NUMBERS, ...DATETIME, ...MISC, ...SETS, ...MATH, ...IDENTIFIERS, ...WEB, ...JOINS };

/** The families' cases, each function's documented examples (doc-examples.ts) added after its own. */
export const EXPRESSION_CASES: ExpressionTable = { ...FAMILY_CASES };
for (const [name, cases] of Object.entries(DOC_EXAMPLES)) EXPRESSION_CASES[name] = [...(FAMILY_CASES[name] ?? []), ...cases];
for (const [name, cases] of Object.entries(BIG_INTEGERS)) EXPRESSION_CASES[name] = [...(EXPRESSION_CASES[name] ?? []), ...cases];
export const TRANSFORM_CASES: TransformTable = { ...TRANSFORMS };
