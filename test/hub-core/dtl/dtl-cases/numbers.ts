// Table cases of the DTL numbers functions: several per function (normal values, null, lists, wrong types).
//
// JSON has one number type, so a float written without a fraction (2.0) reads as the integer 2: the docs' examples
// with such floats give integer results here ("~f2" rather than "~f2.0", is-float of 1.0 is false).
import type { ExpressionTable } from './types.js';

const URI = '~rhttp://www.example.org/';

export const NUMBERS: ExpressionTable = {
  integer: [
    { expr: ['integer', '1'], result: 1 }, // docs
    { expr: ['integer', ['list', '1', '~rhttp://www.bouvet.no/', 124.4, 12345]], result: [1, 124, 12345] }, // docs
    { expr: ['integer', ['integer', 0], ['list', '1', '~rhttp://www.bouvet.no/', '10^2', 12345]], result: [1, 0, 0, 12345] }, // docs
    { expr: ['integer', ['string', 'n/a'], ['list', '1', '~rhttp://www.bouvet.no/', '10^2', 12345]], result: [1, 'n/a', 'n/a', 12345] }, // docs
    { expr: ['integer', ['string', '_.'], ['list', '1', '~rhttp://www.bouvet.no/', '10^2', 12345]], result: [1, 'http://www.bouvet.no/', '10^2', 12345] }, // docs
    { expr: ['integer', '0x00ff'], result: 255 }, // docs
    { expr: ['integer', '0xff'], result: -1 }, // docs
    { expr: ['integer', '0xZZ'], result: null },
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
  decimal: [
    { expr: ['decimal', '1.0'], result: '~f1.0' }, // docs
    { expr: ['decimal', ['list', '1.0', URI, 2.2, 'one']], result: ['~f1.0', '~f2.2'] }, // docs
    { expr: ['decimal', ['boolean', false], ['list', '1.0', 2.1, URI, '124.4', 'FALSE']], result: ['~f1.0', '~f2.1', false, '~f124.4', false] }, // docs
    { expr: ['decimal', ['string', 'n/a'], ['list', '1.0', 2.0, URI, '124.4']], result: ['~f1.0', '~f2', 'n/a', '~f124.4'] }, // docs
    { expr: ['decimal', ['string', '_.'], ['list', '1.0', 2.0, URI, '2.5']], result: ['~f1.0', '~f2', 'http://www.example.org/', '~f2.5'] }, // docs
    { expr: ['decimal', null], result: null },
    { expr: ['decimal', ' -1.50 '], result: '~f-1.50' },
    { expr: ['decimal', '~f3.14'], result: '~f3.14' },
    { expr: ['decimal', 0.1], result: '~f0.1' },
    { expr: ['decimal', '1e3'], result: '~f1000' },
    { expr: ['decimal', 'NaN'], result: null },
    { expr: ['decimal', true], result: null },
    { expr: ['decimal', ['list', null, '~t2020-01-01', 7]], result: ['~f7'] },
  ],
  float: [
    { expr: ['float', '1.0'], result: 1 }, // docs
    { expr: ['float', ['list', '1.0', URI, 2.2, 'one']], result: [1, 2.2] }, // docs
    { expr: ['float', ['boolean', false], ['list', '1.0', 2.1, URI, '124.4', 'FALSE']], result: [1, 2.1, false, 124.4, false] }, // docs
    { expr: ['float', ['string', 'n/a'], ['list', '1.0', 2.0, URI, '124.4']], result: [1, 2, 'n/a', 124.4] }, // docs
    { expr: ['float', ['string', '_.'], ['list', '1.0', 2.0, URI, '2.5']], result: [1, 2, 'http://www.example.org/', 2.5] }, // docs
    { expr: ['float', '~f0.1'], result: 0.1 },
    { expr: ['float', ' 1e3 '], result: 1000 },
    { expr: ['float', 'inf'], result: null },
    { expr: ['float', null], result: null },
    { expr: ['float', true], result: null },
  ],
  boolean: [
    { expr: ['boolean', 'false'], result: false }, // docs
    { expr: ['boolean', null], result: null }, // docs
    { expr: ['boolean', ['list', 'true', URI, 'True', false, 1234]], result: [true, true, false] }, // docs
    { expr: ['boolean', ['boolean', false], ['list', 'true', URI, '124.4', 'FALSE']], result: [true, false, false, false] }, // docs
    { expr: ['boolean', ['string', 'n/a'], ['list', 'true', URI, '124.4']], result: [true, 'n/a', 'n/a'] }, // docs
    { expr: ['boolean', ['string', '_.'], ['list', 'true', URI, 'False']], result: [true, 'http://www.example.org/', false] }, // docs
    { expr: ['boolean', 1], result: null },
    { expr: ['boolean', ' true'], result: null },
    { expr: ['boolean', 'TRUE'], result: true },
  ],
  hex: [
    { expr: ['hex', 1], result: '0x01' }, // docs
    { expr: ['hex', 255], result: '0x00ff' }, // docs
    { expr: ['hex', -1], result: '0xff' }, // docs
    { expr: ['hex', ['list', 1, URI, 124.4, 12345]], result: ['0x01', '0x3039'] }, // docs (they print "0x1" here, against their own "0x01")
    { expr: ['hex', 0], result: '0x00' },
    { expr: ['hex', 128], result: '0x0080' },
    { expr: ['hex', -128], result: '0x80' },
    { expr: ['hex', '255'], result: '0x00ff' },
    { expr: ['hex', '0xff'], result: '0xff' },
    { expr: ['integer', ['hex', -300]], result: -300 },
    { expr: ['hex', null], result: null },
    { expr: ['hex', true], result: null },
    { expr: ['hex', '~f2.5'], result: null },
  ],
  'is-integer': [
    { expr: ['is-integer', 1], result: true }, // docs
    { expr: ['is-integer', '1'], result: false }, // docs
    { expr: ['is-integer', ['list', 1, '12345']], result: true }, // docs
    { expr: ['is-integer', ['list', '1', 2]], result: false }, // docs
    { expr: ['is-integer', ['list', ['integer', '1'], 2]], result: true }, // docs
    { expr: ['is-integer', 1.5], result: false },
    { expr: ['is-integer', '~f1'], result: false },
    { expr: ['is-integer', null], result: false },
    { expr: ['is-integer', ['list']], result: false },
  ],
  'is-decimal': [
    { expr: ['is-decimal', ['decimal', '1.23']], result: true }, // docs
    { expr: ['is-decimal', 1], result: false }, // docs
    { expr: ['is-decimal', ['list', 1.0, '12345']], result: false }, // docs
    { expr: ['is-decimal', ['list', '1.0', 2.0]], result: false }, // docs
    { expr: ['is-decimal', ['list', ['decimal', '-1.0'], 1234]], result: true }, // docs
    { expr: ['is-decimal', 1.5], result: false },
    { expr: ['is-decimal', '_S.x'], source: { x: '~f1.5' }, result: true },
    { expr: ['is-decimal', null], result: false },
  ],
  'is-float': [
    { expr: ['is-float', ['decimal', '1.23']], result: false }, // docs
    { expr: ['is-float', 1], result: false }, // docs
    { expr: ['is-float', ['list', '1.0', 2.0]], result: false }, // docs
    { expr: ['is-float', ['list', ['decimal', '-1.0'], 123.4]], result: false }, // docs
    { expr: ['is-float', 1.5], result: true },
    { expr: ['is-float', ['list', 1.5, '12345']], result: true },
    { expr: ['is-float', ['float', '2.5']], result: true },
    { expr: ['is-float', null], result: false },
  ],
  'is-boolean': [
    { expr: ['is-boolean', false], result: true }, // docs
    { expr: ['is-boolean', 'True'], result: false }, // docs
    { expr: ['is-boolean', ['list', true, '12345']], result: true }, // docs
    { expr: ['is-boolean', ['list', '12345', true]], result: false }, // docs
    { expr: ['is-boolean', ['list', ['boolean', 'FALSE'], 1234]], result: true }, // docs
    { expr: ['is-boolean', 0], result: false },
    { expr: ['is-boolean', null], result: false },
    { expr: ['is-boolean'], error: /exactly 1 argument/ },
  ],
};
