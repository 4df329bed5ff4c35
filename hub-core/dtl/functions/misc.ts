// Miscellaneous: literal.

import { expression, one, type FunctionSpec } from '../registry.js';
import type { DtlValue } from '../values.js';

const FAMILY = 'misc';

export const miscFunctions: FunctionSpec[] = [
  expression({
    name: 'literal',
    family: FAMILY,
    params: [one('VALUE', 'literal')],
    description: 'Its argument exactly as written, not evaluated (so "_S.x" stays a string and a list stays a list).',
    examples: [
      { expression: ['literal', '_S.foo'], result: '_S.foo' },
      { expression: ['literal', { foo: 1, bar: 2 }], result: { foo: 1, bar: 2 } },
      { expression: ['literal', ['upper', 'hello']], result: ['upper', 'hello'] },
    ],
    json: 'yes',
    compile(b) {
      const value = b.one('VALUE').node as DtlValue;
      return () => value;
    },
  }),
];
