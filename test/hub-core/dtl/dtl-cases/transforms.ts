// Table cases of the DTL transforms functions: several per function (normal values, null, lists, wrong types).
import type { TransformTable } from './types.js';

export const TRANSFORMS: TransformTable = {
  add: [
    { rules: ['add', 'age', 26], result: [{ _id: '1', age: 26 }] }, // docs
    { rules: ['add', 'upper_name', ['upper', '_S.name']], source: { _id: '1', name: 'ann' }, result: [{ _id: '1', upper_name: 'ANN' }] }, // docs
    { rules: ['add', ['concat', 'x-', '_S.key'], '_S.value'], source: { _id: '1', key: 'k', value: 7 }, result: [{ _id: '1', 'x-k': 7 }] }, // docs
    { rules: ['add', 'x', null], result: [{ _id: '1', x: null }] },
    { rules: ['add', ['list', 'a', 'b', 3], '_S.v'], source: { _id: '1', v: [1, 2] }, result: [{ _id: '1', a: [1, 2], b: [1, 2] }] },
    { rules: [['add', 'x', 1], ['add', 'x', 2]], result: [{ _id: '1', x: 2 }] },
    { rules: ['add', 'when', ['datetime-parse', '%Y', '2020']], result: [{ _id: '1', when: '~t2020-01-01T00:00:00Z' }] },
    { rules: ['add', 5, 1], error: /PROPERTY of "add" must be a property name/ },
    { rules: ['add', 'x'], error: /exactly 2 arguments, not 1/ },
  ],
  'add-if': [
    { rules: ['add-if', 'foo', null], result: [{ _id: '1' }] }, // docs
    { rules: ['add-if', 'foo', ['list']], result: [{ _id: '1', foo: [] }] }, // docs
    { rules: ['add-if', 'foo', ['list', null]], result: [{ _id: '1', foo: [null] }] }, // docs
    { rules: ['add-if', 'foo', 123], result: [{ _id: '1', foo: 123 }] }, // docs
    { rules: ['add-if', 'foo', ['list', 123]], result: [{ _id: '1', foo: [123] }] }, // docs
    { rules: ['add-if', 'foo', ['list', 123, 456]], result: [{ _id: '1', foo: [123, 456] }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], null], result: [{ _id: '1' }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], ['list']], result: [{ _id: '1' }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], ['list', null]], result: [{ _id: '1' }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], 12], result: [{ _id: '1' }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], 123], result: [{ _id: '1', foo: 123 }] }, // docs
    { rules: ['add-if', 'foo', ['gte', '_.', 18], ['list', 123]], result: [{ _id: '1', foo: [123] }] }, // docs
    { rules: ['add-if', 'foo', 'a', 'b', 'c'], error: /takes 2 to 3 arguments, not 4/ },
  ],
  default: [
    { rules: ['default', 'age', 26], result: [{ _id: '1', age: 26 }] }, // docs
    { rules: [['add', 'age', 1], ['default', 'age', 26]], result: [{ _id: '1', age: 1 }] },
    { rules: [['add', 'age', null], ['default', 'age', 26]], result: [{ _id: '1', age: null }] },
    { rules: ['default', ['concat', 'x-', '_S.key'], '_S.value'], source: { _id: '1', key: 'k', value: [1] }, result: [{ _id: '1', 'x-k': [1] }] }, // docs
    { rules: ['default', '_id', 'other'], result: [{ _id: '1' }] },
    { rules: ['default', { a: 1 }, 26], error: /PROPERTY of "default" must be a property name/ },
  ],
  copy: [
    { rules: ['copy', 'age'], source: { _id: '1', age: 36, name: 'x' }, result: [{ _id: '1', age: 36 }] }, // docs
    { rules: ['copy', 'a*', 'ab*'], source: { _id: '1', a: 1, ab: 2, ac: 3, b: 4 }, result: [{ _id: '1', a: 1, ac: 3 }] }, // docs
    { rules: ['copy', ['list', 'a*', 'b*'], ['list', 'ab*', 'ba*']], source: { _id: '1', ax: 1, ab: 2, bx: 3, ba: 4, c: 5 }, result: [{ _id: '1', ax: 1, bx: 3 }] }, // docs
    { rules: ['copy', ['a*', 'c'], 'a?'], source: { _id: '1', a: 1, ab: 2, abc: 3, c: 4 }, result: [{ _id: '1', a: 1, abc: 3, c: 4 }] },
    { rules: ['copy', '*', '_*'], source: { _id: '1', _updated: 3, x: 1, y: null }, result: [{ _id: '1', x: 1, y: null }] },
    { rules: ['copy', '*'], source: { _id: '1', _deleted: false, x: [1, { y: 2 }] }, result: [{ _id: '1', _deleted: false, x: [1, { y: 2 }] }] },
    { rules: ['copy', ['list', 'missing', 'x']], source: { _id: '1', x: null }, result: [{ _id: '1', x: null }] },
    { rules: ['copy', ['concat', 'n', 'ame']], source: { _id: '1', name: 'dynamic pattern', x: 1 }, result: [{ _id: '1', name: 'dynamic pattern' }] },
    { rules: ['copy', 5], error: /INCLUDE_PROPERTIES of "copy" must be a pattern string or a list of patterns/ },
  ],
  rename: [
    { rules: ['rename', 'age', 'current_age'], source: { _id: '1', age: 40 }, result: [{ _id: '1', current_age: 40 }] }, // docs
    { rules: ['rename', ['concat', 'in-', '_S.key'], ['concat', 'out-', '_S.key']], source: { _id: '1', key: 'a', 'in-a': 5 }, result: [{ _id: '1', 'out-a': 5 }] }, // docs
    { rules: ['rename', 'missing', 'x'], result: [{ _id: '1' }] },
    { rules: ['rename', 'v', 'w'], source: { _id: '1', v: null }, result: [{ _id: '1', w: null }] },
    { rules: ['rename', 'a'], error: /exactly 2 arguments/ },
  ],
  remove: [
    { rules: [['copy', '*'], ['remove', 'age']], source: { _id: '1', age: 3, name: 'x' }, result: [{ _id: '1', name: 'x' }] }, // docs
    { rules: [['copy', '*'], ['remove', 'temp_*']], source: { _id: '1', temp_a: 1, temp_b: 2, keep: 3 }, result: [{ _id: '1', keep: 3 }] }, // docs
    { rules: ['remove', 'not-there'], result: [{ _id: '1' }] },
    { rules: [['copy', '*'], ['remove', '_*']], source: { _id: '1', _x: 1, a: 2 }, result: [{ _id: '1', a: 2 }] }, // the identity stays
    { rules: [['copy', '*'], ['remove', '*']], source: { _id: '1', a: 2 }, result: [{ _id: '1' }] },
    { rules: [['copy', '*'], ['remove', ['list', 'a', 'b?']]], source: { _id: '1', a: 1, bc: 2, bcd: 3 }, result: [{ _id: '1', bcd: 3 }] },
    { rules: ['remove'], error: /exactly 1 argument, not 0/ },
  ],
  merge: [
    { rules: ['merge', ['list', { a: 1 }, { a: 2, b: 3 }]], result: [{ _id: '1', a: 2, b: 3 }] }, // docs
    { rules: ['merge', '_S.orders'], source: { _id: '1', orders: [{ _id: 'o', x: 1 }, { y: 2 }] }, result: [{ _id: '1', x: 1, y: 2 }] }, // docs
    { rules: ['merge', null], result: [{ _id: '1' }] },
    { rules: ['merge', ['list', 1, 'x', { _deleted: true, z: 1 }]], result: [{ _id: '1', z: 1 }] },
    { rules: ['merge', { nested: { _keep: 'inner underscore kept' } }], result: [{ _id: '1', nested: { _keep: 'inner underscore kept' } }] },
    { rules: ['merge'], error: /exactly 1 argument/ },
  ],
  'merge-union': [
    { rules: ['merge-union', ['list', { a: 1 }, { a: 2, b: 3 }]], result: [{ _id: '1', a: [1, 2], b: 3 }] }, // docs
    { rules: ['merge-union', ['list', { a: [1, 2] }, { a: 2 }, { a: [3, 1] }]], result: [{ _id: '1', a: [1, 2, 3] }] },
    { rules: ['merge-union', ['list', { a: 1 }, { a: 1 }]], result: [{ _id: '1', a: 1 }] },
    { rules: ['merge-union', null], result: [{ _id: '1' }] },
    { rules: ['merge-union', ['list', 'x', { _x: 1 }]], result: [{ _id: '1' }] },
    { rules: ['merge-union', 1, 2], error: /exactly 1 argument, not 2/ },
  ],
  'make-ni': [
    { rules: ['make-ni', 'soccer', 'referee', 'ref'], source: { _id: '1', referee: 'john.doe' }, result: [{ _id: '1', ref: '~:soccer:john.doe' }] }, // docs
    { rules: ['make-ni', 'hockey', 'players'], source: { _id: '1', players: ['a', 7, 'b'] }, result: [{ _id: '1', 'players-ni': ['~:hockey:a', '~:hockey:b'] }] }, // docs
    { rules: ['make-ni', 'hockey', 'players'], source: { _id: '1', players: [7, null] }, result: [{ _id: '1' }] },
    { rules: ['make-ni', 'hockey', 'players'], source: { _id: '1', players: null }, result: [{ _id: '1' }] },
    { rules: ['make-ni', 'hockey', 'players'], source: { _id: '1', players: '~:already:ni' }, result: [{ _id: '1' }] },
    { rules: ['make-ni', 'hockey', ['concat', 'p']], error: /FROM_PROPERTY of "make-ni" must be a literal string/ },
  ],
  create: [
    { rules: ['create', '_S.orders'], source: { _id: '1', orders: [{ _id: 'o1', n: 1 }, { _id: 'o2', n: 2 }] }, result: [{ _id: 'o1', n: 1 }, { _id: 'o2', n: 2 }, { _id: '1' }] }, // docs
    { rules: ['create', ['apply', 'order', '_S.orders']], source: { _id: '1', orders: [] }, error: /unknown rule set "order"/ },
    { rules: ['create', null], result: [{ _id: '1' }] },
    { rules: ['create', { _id: 'single' }], result: [{ _id: 'single' }, { _id: '1' }] },
    { rules: ['create', ['dict', '_id', 'd', 'when', ['datetime-parse', '%Y', '2000']]], result: [{ _id: 'd', when: '~t2000-01-01T00:00:00Z' }, { _id: '1' }] },
    { rules: ['create', ['list', { name: 'no id' }]], error: /create: \{"name":"no id"\} is not an entity/ },
    { rules: ['create', 'not an entity'], error: /is not an entity/ },
  ],
  'create-child': [
    { rules: ['create-child', '_S.orders'], source: { _id: '1', orders: [{ _id: 'o1' }, { _id: 'o2' }] }, result: [{ _id: '1', $children: [{ _id: 'o1' }, { _id: 'o2' }] }] }, // docs
    { rules: ['create-child', null], result: [{ _id: '1' }] },
    { rules: [['create-child', { _id: 'a', v: 1 }], ['create-child', ['list', { _id: 'b' }, { _id: 'a', v: 2 }]]], result: [{ _id: '1', $children: [{ _id: 'a', v: 2 }, { _id: 'b' }] }] },
    { rules: ['create-child', ['list', 5]], error: /create-child: 5 is not an entity/ },
  ],
  filter: [
    { rules: ['filter', ['gt', '_S.age', 42]], source: { _id: '1', age: 50 }, result: [{ _id: '1' }] }, // docs
    { rules: ['filter', ['gt', '_S.age', 42]], source: { _id: '1', age: 30 }, result: [{ _id: '1', _deleted: true, _filtered: true }] }, // docs
    { rules: ['filter', ['eq', '_S.type', 'person']], source: { _id: '1', type: 'person' }, result: [{ _id: '1' }] }, // docs
    { rules: ['filter'], result: [{ _id: '1', _deleted: true, _filtered: true }] }, // docs
    { rules: ['filter', null], result: [{ _id: '1', _deleted: true, _filtered: true }] },
    { rules: ['filter', ['list', 0]], result: [{ _id: '1' }] },
    { rules: ['filter', true, false], error: /"filter" takes 0 to 1 arguments, not 2/ },
  ],
  discard: [
    { rules: ['discard', ['gt', '_S.age', 42]], source: { _id: '1', age: 30 }, result: [] }, // docs
    { rules: ['discard', ['eq', '_S.type', 'person']], source: { _id: '1', type: 'person' }, result: [{ _id: '1' }] }, // docs
    { rules: ['discard'], result: [] }, // docs
    { rules: ['discard', ['list']], result: [] },
    { rules: [['add', 'x', 1], ['discard', 'yes'], ['add', 'y', 2]], result: [{ _id: '1', x: 1, y: 2 }] },
    { rules: ['discard', 1, 2], error: /0 to 1 arguments, not 2/ },
  ],
  comment: [
    { rules: ['comment', 'This is a comment'], result: [{ _id: '1' }] }, // docs
    { rules: ['comment', 'First line', 'Second line', 'Third line'], result: [{ _id: '1' }] }, // docs
    { rules: ['comment'], result: [{ _id: '1' }] },
    { rules: ['comment', ['nope', 'not compiled'], ['add', 'never', 'added']], result: [{ _id: '1' }] },
  ],
  if: [
    { rules: ['if', ['gt', '_S.age', 18], ['add', 'type', 'adult'], ['add', 'type', 'child']], source: { _id: '1', age: 20 }, result: [{ _id: '1', type: 'adult' }] }, // docs
    { rules: ['if', ['gt', '_S.age', 18], ['add', 'type', 'adult'], ['add', 'type', 'child']], source: { _id: '1', age: 2 }, result: [{ _id: '1', type: 'child' }] }, // docs
    {
      rules: ['if', ['eq', '_S.type', 'person'], [['add', 'type', 'person'], ['copy', ['list', 'name', 'age']]]],
      source: { _id: '1', type: 'person', name: 'n', age: 3, x: 0 },
      result: [{ _id: '1', type: 'person', name: 'n', age: 3 }],
    }, // docs
    { rules: ['if', null, ['add', 'x', 1]], result: [{ _id: '1' }] },
    { rules: ['if', true, [], ['add', 'x', 1]], result: [{ _id: '1' }] },
    { rules: ['if', true, 'x'], error: /THEN of "if" must be a transform function or a list of transform functions/ },
    { rules: ['if', true, ['upper', 'x']], error: /"upper" is not a transform function/ },
  ],
  case: [
    {
      rules: ['case', ['gte', '_S.age', 18], ['add', 'group', 'adult'], ['gte', '_S.age', 13], ['add', 'group', 'teenager'], ['gte', '_S.age', 2], ['add', 'group', 'toddler'], ['lt', '_S.age', 2], ['add', 'group', 'baby'], ['add', 'group', 'unknown']],
      source: { _id: '1', age: 15 },
      result: [{ _id: '1', group: 'teenager' }],
    }, // docs
    {
      rules: ['case', ['gte', '_S.age', 18], ['add', 'group', 'adult'], ['lt', '_S.age', 2], ['add', 'group', 'baby'], ['add', 'group', 'unknown']],
      source: { _id: '1' },
      result: [{ _id: '1', group: 'unknown' }],
    }, // docs
    { rules: ['case', false, ['add', 'x', 1]], result: [{ _id: '1' }] },
    { rules: ['case', ['list', null], [['add', 'x', 1], ['add', 'y', 2]]], result: [{ _id: '1', x: 1, y: 2 }] },
    { rules: ['case', true, 'not transforms'], error: /expected a transform function or a list of transform functions/ },
  ],
  'case-eq': [
    {
      rules: ['case-eq', '_S.country', 'NO', ['add', 'country', 'Norway'], 'SE', ['add', 'country', 'Sweden'], ['add', 'country', 'Other']],
      source: { _id: '1', country: 'SE' },
      result: [{ _id: '1', country: 'Sweden' }],
    }, // docs
    {
      rules: ['case-eq', '_S.country', 'NO', ['add', 'country', 'Norway'], 'SE', ['add', 'country', 'Sweden'], ['add', 'country', 'Other']],
      source: { _id: '1', country: 'DK' },
      result: [{ _id: '1', country: 'Other' }],
    }, // docs
    {
      rules: ['case-eq', '_S.dialing_code', 45, ['add', 'country_code', 'DK'], 46, ['add', 'country_code', 'SE'], 47, ['add', 'country_code', 'NO']],
      source: { _id: '1', dialing_code: 46 },
      result: [{ _id: '1', country_code: 'SE' }],
    }, // docs
    {
      rules: ['case-eq', '_S.dialing_code', 45, ['add', 'country_code', 'DK'], 47, ['add', 'country_code', 'NO']],
      source: { _id: '1', dialing_code: 1 },
      result: [{ _id: '1' }],
    }, // docs
    { rules: ['case-eq', '_S.missing', null, ['add', 'was', 'null']], result: [{ _id: '1', was: 'null' }] },
    { rules: ['case-eq', '_S.x', 1], error: /needs a value and at least one value\/transforms pair/ },
  ],
  'fail!': [
    { rules: ['fail!', 'Processing stopped because of invalid input. Please review.'], error: /^Processing stopped because of invalid input\. Please review\.$/ }, // docs
    { rules: ['if', ['eq', '_S.ok', true], [], ['fail!', ['concat', 'bad ', '_S._id']]], source: { _id: 'x', ok: false }, error: /^bad x$/ },
    { rules: ['if', ['eq', '_S.ok', true], [], ['fail!', 'bad']], source: { _id: 'x', ok: true }, result: [{ _id: 'x' }] },
    { rules: ['fail!', null], error: /fail! was called/ },
    { rules: ['fail!'], error: /exactly 1 argument/ },
  ],
  'trip!': [
    { rules: ['trip!', 'Circuit breaker tripped because of invalid input.'], error: /^Circuit breaker tripped because of invalid input\.$/ }, // docs
    { rules: ['trip!', ['list', 'first', 'second']], error: /^first$/ },
    { rules: ['if', false, ['trip!', 'never']], result: [{ _id: '1' }] },
    { rules: ['trip!', 'a', 'b'], error: /exactly 1 argument, not 2/ },
  ],
  'sleep!': [
    { rules: ['sleep!', 0], result: [{ _id: '1' }] },
    { rules: ['sleep!', '_S.seconds'], source: { _id: '1', seconds: null }, result: [{ _id: '1' }] },
    { rules: ['sleep!', 'x'], error: /PERIOD of "sleep!" must be an integer or an integer expression/ },
    { rules: ['sleep!', 0.5], error: /PERIOD of "sleep!" must be an integer/ },
  ],
};
