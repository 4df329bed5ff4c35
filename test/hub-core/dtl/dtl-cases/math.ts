// Table cases of the DTL math functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const MATH: ExpressionTable = {
  '+': [
    { expr: ['+', 10, 3], result: 13 }, // docs
    { expr: ['+', 10, ['list', 10, 20, 30]], result: 20 }, // docs
    { expr: ['+', '~f0.1', '~f0.2'], result: '~f0.3' },
    { expr: ['+', 0.1, 0.2], result: 0.30000000000000004 },
    { expr: ['+', '~f1.50', 1], result: '~f2.50' },
    { expr: ['+', '~f0.1', 0.2], result: '~f0.3' },
    { expr: ['+', '_S.a', '_S.b'], source: { a: '~f12345678901234567890.1', b: '~f0.9' }, result: '~f12345678901234567891.0' },
    { expr: ['+', null, 1], result: null },
    { expr: ['+', 1, ['list']], result: null },
    { expr: ['+', '1', 2], result: null },
    { expr: ['+', true, 1], result: null },
    { expr: ['+', 1], error: /exactly 2 arguments/ },
  ],
  '-': [
    { expr: ['-', 1, ['list', 1, 2, 3]], result: 0 }, // docs
    { expr: ['-', 10, 12], result: -2 }, // docs
    { expr: ['-', '~f1.00', '~f0.005'], result: '~f0.995' },
    { expr: ['-', 2.5, 1], result: 1.5 },
    { expr: ['-', 1, null], result: null },
    { expr: ['-', 'a', 1], result: null },
    { expr: ['-', 1, 2, 3], error: /exactly 2 arguments, not 3/ },
  ],
  '*': [
    { expr: ['*', 2, ['list', 2, 4, 6]], result: 4 }, // docs
    { expr: ['*', 10, 20], result: 200 }, // docs
    { expr: ['*', ['list', 2.3, 14], 2], result: 4.6 }, // docs
    { expr: ['*', '~f1.5', '~f1.5'], result: '~f2.25' },
    { expr: ['*', '~f0.1', 3], result: '~f0.3' },
    { expr: ['*', 1e308, 10], result: null },
    { expr: ['*', null, 2], result: null },
    { expr: ['*', { a: 1 }, 2], result: null },
  ],
  '/': [
    { expr: ['/', 2, ['list', 4, 6, 8]], result: 0.5 }, // docs
    { expr: ['/', 10, 20], result: 0.5 }, // docs
    { expr: ['/', ['list', -3, 10, 100], 2], result: -1.5 }, // docs
    { expr: ['/', ['list', 3, 8], ['list', -2, 6]], result: -1.5 }, // docs
    { expr: ['/', 5, 0], result: null }, // docs
    { expr: ['/', 1, 3], result: 0.3333333333333333 },
    { expr: ['/', '~f1', 3], result: '~f0.3333333333333333333333333333' },
    { expr: ['/', '~f2', 3], result: '~f0.6666666666666666666666666667' },
    { expr: ['/', '~f6.0', 2], result: '~f3.0' },
    { expr: ['/', '~f10', 4], result: '~f2.5' },
    { expr: ['/', '~f1', '~f0.00'], result: null },
    { expr: ['/', null, 2], result: null },
    { expr: ['/', 2, 'x'], result: null },
  ],
  '%': [
    { expr: ['%', 2, ['list', 2, 5, 6]], result: 0 }, // docs
    { expr: ['%', 5, 3], result: 2 }, // docs
    { expr: ['%', ['list', 5, 8, 9], 3], result: 2 }, // docs
    { expr: ['%', ['list', 5, 8, 9], ['list', 3, -2.3]], result: 2 }, // docs
    { expr: ['%', -5, 3], result: 1 },
    { expr: ['%', 5, -3], result: -1 },
    { expr: ['%', 5.5, 2], result: 1.5 },
    { expr: ['%', '~f5.5', 2], result: '~f1.5' },
    { expr: ['%', '~f-5.5', 2], result: '~f0.5' },
    { expr: ['%', 5, 0], result: null },
    { expr: ['%', null, 3], result: null },
  ],
  '^': [
    { expr: ['^', 2, ['list', 2, 5, 6]], result: 4 }, // docs
    { expr: ['^', 5, 2], result: 25 }, // docs
    { expr: ['^', ['list', 2, 8, 9], 3], result: 8 }, // docs
    { expr: ['^', ['list', 2, 8, 9], ['list', 3, -2.3]], result: 8 }, // docs
    { expr: ['^', 2, -1], result: 0.5 },
    { expr: ['^', 4, 0.5], result: 2 },
    { expr: ['^', -8, 0.5], result: null },
    { expr: ['^', 0, -1], result: null },
    { expr: ['^', '~f1.1', 2], result: '~f1.21' },
    { expr: ['^', '~f2', -2], result: '~f0.25' },
    { expr: ['^', '~f2', 0.5], result: '~f1.414213562373095048801688724' },
    { expr: ['^', null, 2], result: null },
    { expr: ['^', 2, 'x'], result: null },
  ],
  plus: [
    { expr: ['plus', 10, ['list', 1, 2, 3]], result: [11, 12, 13] }, // docs
    { expr: ['plus', 10, 10], result: 20 }, // docs
    { expr: ['plus', '~f0.1', ['list', '~f0.2', 1, 'x', null]], result: ['~f0.3', '~f1.1'] },
    { expr: ['plus', ['list', 2, 3], ['list', 1]], result: [3] },
    { expr: ['plus', 1, null], result: null },
    { expr: ['plus', null, ['list', 1]], result: null },
    { expr: ['plus', 'x', 1], result: null },
    { expr: ['plus', 1, 'x'], result: null },
    { expr: ['plus', 1], error: /exactly 2 arguments/ },
  ],
  minus: [
    { expr: ['minus', 1, ['list', 1, 2, 3]], result: [0, 1, 2] }, // docs
    { expr: ['minus', 10, 12], result: 2 }, // docs
    { expr: ['minus', '~f0.5', ['list', 1, 2.5]], result: ['~f0.5', '~f2.0'] },
    { expr: ['minus', 1, ['list']], result: [] },
    { expr: ['minus', 1, null], result: null },
    { expr: ['minus', true, 1], result: null },
  ],
  multiply: [
    { expr: ['multiply', 2, ['list', 2, 4, 6]], result: [4, 8, 12] }, // docs
    { expr: ['multiply', 10, 20], result: 200 }, // docs
    { expr: ['multiply', 2.3, 2], result: 4.6 }, // docs
    { expr: ['multiply', '~f1.10', ['list', 2, '~f0.5']], result: ['~f2.20', '~f0.550'] },
    { expr: ['multiply', 2, ['list', true, '3', 4]], result: [8] },
    { expr: ['multiply', null, 1], result: null },
  ],
  divide: [
    { expr: ['divide', 2, ['list', 2, 4, 6]], result: [1, 2, 3] }, // docs
    { expr: ['divide', 10, 20], result: 2 }, // docs
    { expr: ['divide', ['list', 2, 8], 3], result: 1.5 }, // docs
    { expr: ['divide', 3, '~f1'], result: '~f0.3333333333333333333333333333' },
    { expr: ['divide', 4, ['list', 1, 'x', null]], result: [0.25] },
    { expr: ['divide', 0, ['list', 1, 2]], result: null },
    { expr: ['divide', 'x', 1], result: null },
    { expr: ['divide', 2, null], result: null },
  ],
  mod: [
    { expr: ['mod', 2, ['list', 2, 5, 6]], result: [0, 1, 0] }, // docs
    { expr: ['mod', 3, 5], result: 2 }, // docs
    { expr: ['mod', 3, ['list', -5, '~f7.5', 'x']], result: [1, '~f1.5'] },
    { expr: ['mod', 0, 5], result: null },
    { expr: ['mod', 2, null], result: null },
  ],
  pow: [
    { expr: ['pow', 2, ['list', 2, 5, 6]], result: [4, 25, 36] }, // docs
    { expr: ['pow', 3, 10], result: 1000 }, // docs
    { expr: ['pow', 0.5, ['list', 4, -4]], result: [2] },
    { expr: ['pow', 2, '~f1.5'], result: '~f2.25' },
    { expr: ['pow', 2, null], result: null },
    { expr: ['pow', null, 2], result: null },
  ],
  abs: [
    { expr: ['abs', ['list', -2, 4, -6]], result: [2, 4, 6] }, // docs
    { expr: ['abs', 2], result: 2 }, // docs
    { expr: ['abs', -2.23], result: 2.23 }, // docs
    { expr: ['abs', '~f-1.50'], result: '~f1.50' },
    { expr: ['abs', ['list', 'x', -1, null]], result: [1] },
    { expr: ['abs', null], result: null },
    { expr: ['abs', 'x'], result: null },
    { expr: ['abs', 1, 2], error: /exactly 1 argument, not 2/ },
  ],
  ceil: [
    { expr: ['ceil', ['list', 2.2, 4.778, 6]], result: [3, 5, 6] }, // docs
    { expr: ['ceil', 1, ['list', 2.2, 4.778, 6]], result: [2.2, 4.8, 6] }, // docs
    { expr: ['ceil', 2, 2.299], result: 2.3 }, // docs (a float: 2.30 is 2.3)
    { expr: ['ceil', 2.299], result: 3 }, // docs
    { expr: ['ceil', 2, '~f2.299'], result: '~f2.30' },
    { expr: ['ceil', '~f-2.5'], result: -2 },
    { expr: ['ceil', -2.5], result: -2 },
    { expr: ['ceil', -1, 1234], result: 1240 },
    { expr: ['ceil', '_S.d', 2.25], source: { d: 1 }, result: 2.3 },
    { expr: ['ceil', '_S.d', 2.25], source: { d: 'x' }, result: null },
    { expr: ['ceil', null], result: null },
    { expr: ['ceil', 'x'], result: null },
    { expr: ['ceil', 1.5, 2], error: /DIGITS of "ceil" must be an integer/ },
  ],
  floor: [
    { expr: ['floor', ['list', 2.2, 4.778, 6]], result: [2, 4, 6] }, // docs
    { expr: ['floor', 1, ['list', 2.2, 4.778, 6]], result: [2.2, 4.7, 6] }, // docs
    { expr: ['floor', 2, 2.299], result: 2.29 }, // docs
    { expr: ['floor', 2.299], result: 2 }, // docs
    { expr: ['floor', -2.5], result: -3 },
    { expr: ['floor', 1, '~f-2.25'], result: '~f-2.3' },
    { expr: ['floor', '~f7.9'], result: 7 },
    { expr: ['floor', ['list', 'a', 1.5, null]], result: [1] },
    { expr: ['floor', null], result: null },
  ],
  round: [
    { expr: ['round', ['list', 2.2, 3.5, 4.5]], result: [2, 4, 4] }, // docs
    { expr: ['round', 1, ['list', 2.2, 4.778, 6]], result: [2.2, 4.8, 6] }, // docs
    { expr: ['round', 2, 2.299], result: 2.3 }, // docs (a float: 2.30 is 2.3)
    { expr: ['round', -4.5], result: -4 }, // docs
    { expr: ['round', -3.5], result: -4 }, // docs
    { expr: ['round', 2.299], result: 2 }, // the docs say 3, which contradicts their own rounding rule
    { expr: ['round', 2, '~f2.675'], result: '~f2.68' },
    { expr: ['round', 2, '~f2.665'], result: '~f2.66' },
    { expr: ['round', 2, 2.675], result: 2.68 },
    { expr: ['round', -2, 1250], result: 1200 },
    { expr: ['round', -2, 1350], result: 1400 },
    { expr: ['round', '~f0.5'], result: 0 },
    { expr: ['round', null], result: null },
    { expr: ['round', ['list', 'x', true]], result: [] },
  ],
  sqrt: [
    { expr: ['sqrt', ['list', 4, 9, 16]], result: [2, 3, 4] }, // docs
    { expr: ['sqrt', -2], result: null }, // docs
    { expr: ['sqrt', 9.0], result: 3 }, // docs
    { expr: ['sqrt', 2], result: 1.4142135623730951 },
    { expr: ['sqrt', '~f2'], result: '~f1.414213562373095048801688724' },
    { expr: ['sqrt', '~f0.25'], result: '~f0.5' },
    { expr: ['sqrt', ['list', -1, 4, 'x']], result: [2] },
    { expr: ['sqrt', null], result: null },
  ],
  sin: [
    { expr: ['sin', ['list', 0, 3.14159265]], result: [0, 3.5897930298416118e-9] }, // docs (about 0)
    { expr: ['sin', 0.0], result: 0 }, // docs
    { expr: ['sin', '~f1'], result: 0.8414709848078965 },
    { expr: ['sin', null], result: null },
    { expr: ['sin', 'x'], result: null },
  ],
  cos: [
    { expr: ['cos', ['list', 0, 3.14159265]], result: [1, -1] }, // docs (about -1)
    { expr: ['cos', 0.0], result: 1 }, // docs
    { expr: ['cos', 1], result: 0.5403023058681398 },
    { expr: ['cos', ['list', 'x', null]], result: [] },
    { expr: ['cos', null], result: null },
  ],
  tan: [
    { expr: ['tan', ['list', 0, 3.14159265]], result: [0, -3.5897930298416118e-9] }, // docs (about 0)
    { expr: ['tan', '~f0'], result: 0 },
    { expr: ['tan', null], result: null },
    { expr: ['tan', true], result: null },
  ],
};
