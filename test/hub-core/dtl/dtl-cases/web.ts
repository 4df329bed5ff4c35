// Table cases of the DTL web functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

const UUID = '9f598f65-eea5-4906-a8f5-82f6d8e69726';

export const WEB: ExpressionTable = {
  uri: [
    { expr: ['uri', 'http://www.example.org/'], result: '~rhttp://www.example.org/' }, // docs
    { expr: ['uri', ['list', 'http://www.example.org/', 'http://www.sesam.io/', 12345]], result: ['~rhttp://www.example.org/', '~rhttp://www.sesam.io/'] }, // docs
    { expr: ['uri', 'not escaped ä'], result: '~rnot escaped ä' },
    { expr: ['uri', '~rhttp://x/'], result: '~rhttp://x/' },
    { expr: ['uri', '~:a:b'], result: null },
    { expr: ['uri', null], result: null },
    { expr: ['uri', 5], result: null },
  ],
  'url-quote': [
    { expr: ['url-quote', '/foo bar/baz'], result: '%2Ffoo%20bar%2Fbaz' }, // docs
    { expr: ['url-quote', '/', '/foo bar/baz'], result: '/foo%20bar/baz' }, // docs
    { expr: ['url-quote', ['list', 'å', 1, 2, ['uri', 'http://example.com'], 'foo bar']], result: ['%C3%A5', 'foo%20bar'] }, // docs
    { expr: ['url-quote', "a-b_c.d~e!*'()?&=+"], result: 'a-b_c.d~e%21%2A%27%28%29%3F%26%3D%2B' },
    { expr: ['url-quote', ':/?', 'http://x/?a=1'], result: 'http://x/?a%3D1' },
    { expr: ['url-quote', 'ö', 'ö'], result: '%C3%B6' },
    { expr: ['url-quote', '😀'], result: '%F0%9F%98%80' },
    { expr: ['url-quote', null], result: null },
    { expr: ['url-quote', 5], result: null },
    { expr: ['url-quote', ['concat', '/'], 'x'], error: /SAFE_CHARS of "url-quote" must be a literal string/ },
  ],
  'url-unquote': [
    { expr: ['url-unquote', '%2Ffoo%20bar%2Fbaz'], result: '/foo bar/baz' }, // docs
    { expr: ['url-unquote', ['list', 1, '%C3%A5', ['uri', 'http://example.com'], 'foo%20bar']], result: ['å', 'foo bar'] }, // docs
    { expr: ['url-unquote', 'a+b%zz%4'], result: 'a+b%zz%4' },
    { expr: ['url-unquote', '%c3%a5%C3'], result: 'å\uFFFD' },
    { expr: ['url-unquote', ['url-quote', 'æøå /?']], result: 'æøå /?' },
    { expr: ['url-unquote', null], result: null },
    { expr: ['url-unquote', true], result: null },
  ],
  'is-uri': [
    { expr: ['is-uri', ['uri', 'foo:bar']], result: true }, // docs
    { expr: ['is-uri', 'foo:bar'], result: false }, // docs
    { expr: ['is-uri', ['list', ['uri', 'foo:bar'], 12345]], result: true }, // docs
    { expr: ['is-uri', ['list', 1, ['uri', 'foo:bar']]], result: false }, // docs
    { expr: ['is-uri', '~rhttp://x/'], result: true },
    { expr: ['is-uri', null], result: false },
    // The docs say json-parse keeps "~r..." a string; in this engine a valid tagged string is always that value.
    { expr: ['is-uri', ['json-parse', '"~rhttp://www.example.org/"']], result: true },
  ],
  uuid: [
    { expr: ['is-uuid', ['uuid']], result: true }, // docs
    { expr: ['eq', ['uuid'], ['uuid']], result: false },
    { expr: ['matches', '????????-????-4???-????-????????????', ['string', ['uuid']]], result: true },
    { expr: ['uuid', 'abc98f65-ddf5-1234-a8f5-82f6d8e69726'], result: '~uabc98f65-ddf5-1234-a8f5-82f6d8e69726' }, // docs
    {
      expr: ['uuid', ['list', 'abc98f65-ddf5-1234-a8f5-82f6d8e601a8', 2, UUID]],
      result: ['~uabc98f65-ddf5-1234-a8f5-82f6d8e601a8', `~u${UUID}`],
    }, // docs (which print a different first UUID than it was given)
    { expr: ['uuid', '{9F598F65EEA54906A8F582F6D8E69726}'], result: `~u${UUID}` },
    { expr: ['uuid', `urn:uuid:${UUID}`], result: `~u${UUID}` },
    { expr: ['uuid', `~u${UUID}`], result: `~u${UUID}` },
    { expr: ['uuid', ['list', 'not-a-uuid', '9f598f65', 5]], result: [] },
    { expr: ['uuid', null], result: null },
    { expr: ['uuid', 'a', 'b'], error: /"uuid" takes 0 to 1 arguments, not 2/ },
  ],
  'is-uuid': [
    { expr: ['is-uuid', ['uuid']], result: true }, // docs
    { expr: ['is-uuid', `~u${UUID}`], result: true }, // docs
    { expr: ['is-uuid', 'some-string'], result: false }, // docs
    { expr: ['is-uuid', ['list', ['uuid'], '12345']], result: true }, // docs
    { expr: ['is-uuid', ['list', '12345', ['uuid']]], result: false }, // docs
    { expr: ['is-uuid', UUID], result: false },
    { expr: ['is-uuid', null], result: false },
  ],
  bytes: [
    { expr: ['bytes', 'abc'], result: '~bYWJj' }, // docs
    { expr: ['bytes', ['list', 'abc', 1, 'å']], result: ['~bYWJj', '~bw6U='] },
    { expr: ['bytes', ''], result: '~b' },
    { expr: ['bytes', '~bYWJj'], result: '~bYWJj' },
    { expr: ['bytes', '~rhttp://x/'], result: null },
    { expr: ['bytes', null], result: null },
  ],
  'base64-encode': [
    { expr: ['base64-encode', ['bytes', 'abc']], result: 'YWJj' }, // docs
    { expr: ['base64-encode', ['list', 1, ['bytes', 'abc'], 2, ['bytes', 'def'], 3]], result: ['YWJj', 'ZGVm'] }, // docs
    { expr: ['base64-encode', '~b+/8='], result: '+/8=' },
    { expr: ['base64-encode', 'abc'], result: null },
    { expr: ['base64-encode', null], result: null },
  ],
  'base64-decode': [
    // The docs print "~babc" for this one and "~bYWJj" for the same input in a list; bytes are written as base64.
    { expr: ['base64-decode', 'YWJj'], result: '~bYWJj' }, // docs
    { expr: ['base64-decode', ['list', 1, 'YWJj', 2, 'ZGVm', 3]], result: ['~bYWJj', '~bZGVm'] }, // docs
    { expr: ['base64-decode', '-_8'], result: '~b+/8=' },
    { expr: ['base64-decode', 'w6U'], result: '~bw6U=' },
    { expr: ['base64-decode', ['list', 'not base64!', 'abcde', 'YW=J']], result: [] },
    { expr: ['base64-decode', ['base64-encode', ['bytes', 'round trip']]], result: '~bcm91bmQgdHJpcA==' },
    { expr: ['base64-decode', null], result: null },
    { expr: ['base64-decode', 5], result: null },
  ],
  'is-bytes': [
    { expr: ['is-bytes', ['bytes', 'abc']], result: true }, // docs
    { expr: ['is-bytes', '~bYWJj'], result: true }, // docs
    { expr: ['is-bytes', 'some-string'], result: false }, // docs
    { expr: ['is-bytes', ['list', '~bYWJj', '12345']], result: true }, // docs
    { expr: ['is-bytes', ['list', '12345', '~bYWJj']], result: false }, // docs
    { expr: ['is-bytes', null], result: false },
  ],
  json: [
    { expr: ['json', 1], result: '1' }, // docs
    { expr: ['json', 'hello'], result: '"hello"' }, // docs
    {
      expr: ['json', ['list', 'abc', ['list', 1, 2, 3], { b: 2, a: 1 }, ['uri', 'http://www.example.org/'], 124.4, 12345]],
      result: ['"abc"', '[1, 2, 3]', '{"a": 1, "b": 2}', 'http://www.example.org/', '124.4', '12345'],
    }, // docs (hub/dtl/dtl-functions-json.rst: a URI on its own gives its text without JSON quotes)
    { expr: ['json', ['list', ['list', ['uri', 'http://x/']], ['dict', 'u', ['uri', 'http://x/']]]], result: ['["http://x/"]', '{"u": "http://x/"}'] }, // inside a list or dict it stays quoted JSON (our reading: the page is silent)
    { expr: ['json', { z: [true, null], a: { c: '~t2020-01-01T00:00:00Z', b: '~f1.50' } }], result: '{"a": {"b": 1.50, "c": "2020-01-01T00:00:00Z"}, "z": [true, null]}' },
    { expr: ['json', '~:ns:id'], result: '"ns:id"' },
    { expr: ['json', 'line\n"quoted" æ'], result: '"line\\n\\"quoted\\" æ"' },
    { expr: ['json', null], result: null },
    { expr: ['json', ['list', null, 1]], result: ['1'] },
  ],
  'json-transit': [
    { expr: ['json-transit', 1], result: '1' }, // docs
    { expr: ['json-transit', 'hello'], result: '"hello"' }, // docs
    {
      expr: ['json-transit', ['list', 'abc', ['list', 1, 2, 3], { b: 2, a: 1 }, ['uri', 'http://www.example.org/'], 124.4, 12345]],
      result: ['"abc"', '[1, 2, 3]', '{"a": 1, "b": 2}', '~rhttp://www.example.org/', '124.4', '12345'],
    }, // docs (hub/dtl/dtl-functions-json.rst: a URI on its own gives its tagged string without JSON quotes)
    { expr: ['json-transit', ['dict', 'b', '~f1.50', 'a', ['datetime-parse', '%Y', '2020']]], result: '{"a": "~t2020-01-01T00:00:00Z", "b": "~f1.50"}' },
    { expr: ['json-transit', ['bytes', 'abc']], result: '"~bYWJj"' },
    { expr: ['json-transit-parse', ['json-transit', ['dict', 'u', ['uri', 'http://x/']]]], result: { u: '~rhttp://x/' } },
    { expr: ['json-transit', null], result: null },
  ],
  'json-parse': [
    { expr: ['json-parse', '1'], result: 1 }, // docs
    { expr: ['json-parse', '"hello"'], result: 'hello' }, // docs
    { expr: ['json-parse', '{"a": 1, "b": 2}'], result: { a: 1, b: 2 } }, // docs
    { expr: ['json-parse', 'hello'], result: null }, // docs
    // The docs' list also holds "\"~rhttp://example.org/\"": a URI here (see is-uri), so it is left out of this case.
    { expr: ['json-parse', ['list', 'hello', '123', 'null', '"abc"']], result: [123, null, 'abc'] }, // docs
    { expr: ['json-parse', 'no-value', 'hello'], result: 'no-value' }, // docs
    { expr: ['json-parse', 'no-value', 'null'], result: null }, // docs
    { expr: ['json-parse', ['concat', 'bad: ', '_.'], ['list', '[1, 2]', '{']], result: [[1, 2], 'bad: {'] },
    { expr: ['json-parse', 'd', ['list', 5, null, true]], result: ['d', 'd'] },
    { expr: ['json-parse', ['list', 5, true, { a: 1 }]], result: [] },
    { expr: ['json-parse', '{"__proto__": {"x": 1}}'], result: { ['__proto__']: { x: 1 } } },
    { expr: ['json-parse', null], result: null },
    { expr: ['json-parse', 'a', 'b', 'c'], error: /"json-parse" takes 1 to 2 arguments, not 3/ },
  ],
  'json-transit-parse': [
    { expr: ['json-transit-parse', '1'], result: 1 }, // docs
    { expr: ['json-transit-parse', '"hello"'], result: 'hello' }, // docs
    { expr: ['is-uri', ['json-transit-parse', '"~rhttp://www.example.org/"']], result: true }, // docs
    { expr: ['json-transit-parse', 'hello'], result: null }, // docs
    { expr: ['json-transit-parse', ['list', 'hello', '123', 'null', '"abc"', '"~rhttp://example.org/"']], result: [123, null, 'abc', '~rhttp://example.org/'] }, // docs
    { expr: ['json-transit-parse', 'no-value', '~rhttp://example.org/'], result: 'no-value' }, // docs
    { expr: ['is-uri', ['json-transit-parse', 'no-value', '"~rhttp://example.org/"']], result: true }, // docs
    { expr: ['is-datetime', ['json-transit-parse', '{"t": "~t2020-01-01T00:00:00Z"}']], result: false },
    { expr: ['is-datetime', ['path', 't', ['json-transit-parse', '{"t": "~t2020-01-01T00:00:00Z"}']]], result: true },
    { expr: ['json-transit-parse', 0, ['list', '[', 5]], result: [0, 0] },
    { expr: ['json-transit-parse', null], result: null },
  ],
};
