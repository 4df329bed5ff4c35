// Table cases of the DTL conditionals functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const CONDITIONALS: ExpressionTable = {
  if: [
    { expr: ['if', ['gt', '_S.age', 42], 1, 2], source: { age: 50 }, result: 1 }, // docs
    { expr: ['if', ['gt', '_S.age', 42], 1, 2], source: { age: 10 }, result: 2 }, // docs
    { expr: ['if', null, 'then', 'else'], result: 'else' },
    { expr: ['if', ['list', null], 'then', 'else'], result: 'then' },
    { expr: ['if', false, 'then'], result: null },
    { expr: ['if', true, ['list', 1, 2]], result: [1, 2] },
    { expr: ['if', true], error: /"if" takes 2 to 3 arguments, not 1/ },
  ],
  case: [
    { expr: ['case', ['gte', '_S.age', 18], 'adult', ['gte', '_S.age', 13], 'teenager', 'child'], source: { age: 30 }, result: 'adult' },
    { expr: ['case', ['gte', '_S.age', 18], 'adult', ['gte', '_S.age', 13], 'teenager', 'child'], source: { age: 13 }, result: 'teenager' },
    { expr: ['case', ['gte', '_S.age', 18], 'adult', ['gte', '_S.age', 13], 'teenager', 'child'], source: {}, result: 'child' },
    { expr: ['case', null, 1, ['list'], 2], result: null },
    { expr: ['case', ['list', 0], ['list', 'a', 'b']], result: ['a', 'b'] },
    { expr: ['case', true], error: /needs at least one condition/ },
  ],
  'case-eq': [
    { expr: ['case-eq', '_S.country', 'NO', 'Norway', 'SE', 'Sweden', 'Other'], source: { country: 'NO' }, result: 'Norway' },
    { expr: ['case-eq', '_S.country', 'NO', 'Norway', 'SE', 'Sweden', 'Other'], source: { country: 'SE' }, result: 'Sweden' },
    { expr: ['case-eq', '_S.country', 'NO', 'Norway', 'SE', 'Sweden', 'Other'], source: {}, result: 'Other' },
    { expr: ['case-eq', '_S.code', 45, 'DK', 47, 'NO'], source: { code: 46 }, result: null },
    { expr: ['case-eq', '_S.code', null, 'none', 47, 'NO'], source: {}, result: 'none' },
    { expr: ['case-eq', ['list', 'a'], 'a', 'one-element list equals the value'], result: 'one-element list equals the value' },
    { expr: ['case-eq', 'x', 'y'], error: /needs a value and at least one value\/result pair/ },
  ],
};
