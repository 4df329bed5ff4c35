// Table cases of the DTL misc functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const MISC: ExpressionTable = {
  literal: [
    { expr: ['literal', '_S.foo'], source: { foo: 1 }, result: '_S.foo' }, // docs
    { expr: ['literal', { foo: 1, bar: 2 }], result: { foo: 1, bar: 2 } }, // docs
    { expr: ['literal', ['upper', 'hello']], result: ['upper', 'hello'] }, // docs
    { expr: ['literal', null], result: null },
    { expr: ['literal', ['nope', 'not compiled']], result: ['nope', 'not compiled'] },
    { expr: ['literal'], error: /exactly 1 argument, not 0/ },
  ],
};
