// Table cases of the DTL identifiers functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const IDENTIFIERS: ExpressionTable = {
  ni: [
    { expr: ['ni', 'foo', 'bar'], result: '~:foo:bar' }, // docs
    { expr: ['ni', 'bar'], result: '~:bar' }, // docs
    { expr: ['ni', 'foo', ['list', 'bar', 'x:y']], result: ['~:foo:bar', '~:foo:x:y'] }, // docs
    { expr: ['ni', 'foo', ['uri', 'http://example.org/']], result: null }, // docs
    { expr: ['ni', ['uri', 'http://example.org/bar']], result: '~:_:bar' }, // docs
    // An undeclared prefix needs the pipe id for a generated namespace; without a pipe the URI is left out.
    { expr: ['ni', ['uri', 'http://unknown.org/something/baz']], result: null },
    { expr: ['ni', 'foo:bar'], result: '~:foo:bar' },
    { expr: ['ni', '_', 'bar'], result: '~:_:bar' },
    { expr: ['ni', '~:a:b'], result: '~:a:b' },
    { expr: ['ni', 'foo', '~:a:b'], result: null },
    { expr: ['ni', '_S.type', '_S.ids'], source: { type: 'person', ids: ['1', 2, '3'] }, result: ['~:person:1', '~:person:3'] },
    { expr: ['ni', '_S.type', '_S.id'], source: { id: '1' }, result: null },
    { expr: ['ni', 'foo', null], result: null },
    { expr: ['ni', 'foo', ['list', 1, true, { a: 1 }]], result: [] },
    { expr: ['ni', ''], result: null },
    // A computed NAMESPACE is evaluated per entity (real projects on the service do this); ["ni", "a", "x"] is "~:a:x".
    { expr: ['ni', ['concat', 'a'], 'x'], result: '~:a:x' },
  ],
  'ni-ns': [
    { expr: ['ni-ns', '~:foo:bar'], result: 'foo' }, // docs
    { expr: ['ni-ns', 'foo:bar'], result: 'foo' }, // docs
    { expr: ['ni-ns', 'foo'], result: '' }, // docs
    { expr: ['ni-ns', ['list', '~:foo:bar', '~:bar:baz']], result: ['foo', 'bar'] }, // docs
    { expr: ['ni-ns', ['list', 'foo:bar', 'bar:baz']], result: ['foo', 'bar'] }, // docs
    { expr: ['ni-ns', ['ni', 'x', 'a:b']], result: 'x' },
    { expr: ['ni-ns', '~:global'], result: '' },
    { expr: ['ni-ns', null], result: null },
    { expr: ['ni-ns', ['list', 1, '~rhttp://x/', 'a:b']], result: ['a'] },
  ],
  'ni-id': [
    { expr: ['ni-id', '~:foo:bar'], result: 'bar' }, // docs
    { expr: ['ni-id', 'foo:bar'], result: 'bar' }, // docs
    { expr: ['ni-id', 'bar'], result: 'bar' }, // docs
    { expr: ['ni-id', ['list', '~:foo:bar', '~:bar:baz']], result: ['bar', 'baz'] }, // docs
    { expr: ['ni-id', ['list', 'foo:bar', 'bar:baz']], result: ['bar', 'baz'] }, // docs
    { expr: ['ni-id', '~:foo:x:y'], result: 'x:y' },
    { expr: ['ni-id', '_S.ref'], source: { ref: '~:person:42' }, result: '42' },
    { expr: ['ni-id', null], result: null },
    { expr: ['ni-id', ['list', 1, { a: 1 }, '~u9f598f65-eea5-4906-a8f5-82f6d8e69726']], result: [] },
  ],
  'is-ni': [
    { expr: ['is-ni', ['ni', 'foo:bar']], result: true }, // docs
    { expr: ['is-ni', 'foo:bar'], result: false }, // docs
    { expr: ['is-ni', ['list', ['ni', 'foo:bar'], 12345]], result: true }, // docs
    { expr: ['is-ni', ['list', 1, ['ni', 'foo:bar']]], result: false }, // docs
    { expr: ['is-ni', '~:foo:bar'], result: true },
    { expr: ['is-ni', '~:'], result: false },
    { expr: ['is-ni', null], result: false },
    { expr: ['is-ni', ['list']], result: false },
  ],
};
