// Table cases of the DTL numbers functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const NUMBERS: ExpressionTable = {
  integer: [
    { expr: ['integer', '1'], result: 1 }, // docs
    { expr: ['integer', ['list', '1', '~rhttp://www.bouvet.no/', 124.4, 12345]], result: [1, 124, 12345] }, // docs
    { expr: ['integer', ['integer', 0], ['list', '1', '~rhttp://www.bouvet.no/', '10^2', 12345]], result: [1, 0, 0, 12345] }, // docs
    { expr: ['integer', ['string', 'n/a'], ['list', '1', '~rhttp://www.bouvet.no/', '10^2', 12345]], result: [1, 'n/a', 'n/a', 12345] }, // docs
    { expr: ['integer', ['string', '_.'], ['list', '1', '~rhttp://www.bouvet.no/', '10^2', 12345]], result: [1, 'http://www.bouvet.no/', '10^2', 12345] }, // docs
    { expr: ['integer', null], result: null },
    { expr: ['integer', '12.5'], result: null },
    { expr: ['integer', -3.7], result: -3 },
    { expr: ['integer', '~f-2.9'], result: -2 },
    { expr: ['integer', ' 42 '], result: 42 },
    { expr: ['integer', true], result: null },
    { expr: ['integer', ['list', null, '2']], result: [2] },
    { expr: ['integer', 0, ['list', null, 'x']], result: [0] },
    { expr: ['integer', 1, 2, 3], error: /takes 1 to 2 arguments, not 3/ },
  ],
};
