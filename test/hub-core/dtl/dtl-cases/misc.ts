// Table cases of the DTL misc functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

// Fernet tokens made independently of this engine, with Python's `cryptography` package:
//   key = base64.urlsafe_b64encode(bytes(range(32)));  Fernet(key).encrypt("hello wörld".encode())
//   pw  = base64.urlsafe_b64encode(hashlib.sha256(b"my password").digest())
//   Fernet(pw).encrypt(b"top secret");  Fernet(pw).encrypt(bytes([0xff, 0x00, 0x01]))
const FERNET_KEY = 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=';
const TOKEN_HELLO = 'gAAAAABrAno97DRPhbVZ4aje5bTh12uKiNMNbZBIEbsP0wnIoaodmbQPcuduliyAJyFcfjp94VoJpupFAyjTZOWIO3jgS5DXyg==';
const TOKEN_TOP_SECRET = 'gAAAAABrAno9ystipk-9_DztCHae1J2zGFk939VQrtFiL1X1t8e9YyX9-ooDTluzCVkHyw8xNn8u3_Yz2QkBHSboOgSGTOBasg==';
const TOKEN_BINARY = 'gAAAAABrAno9Dvpdw5ZvpTW7spDhzqD43H5rySC56TBjDWAwIPeDUrmC9BbVBS_yMeEhj6wvBvYoWFWFZhVLYj0gpe1DEiWNZg==';
/** The token's ASCII text as a bytes value, as `encrypt` gives it. */
const asBytes = (token: string): string => '~b' + Buffer.from(token, 'ascii').toString('base64');

// hub/dtl/dtl-functions-misc.rst: ["hash128", "murmur3", "abc"] returns 79267961763742113019008347020647561319, a plain
// integer (the entity data model's integers are unlimited), not a decimal.
const ABC = 79267961763742113019008347020647561319n;
const DEF = 114697464648834432121201791580882983835n;

export const MISC: ExpressionTable = {
  literal: [
    { expr: ['literal', '_S.foo'], source: { foo: 1 }, result: '_S.foo' }, // docs
    { expr: ['literal', { foo: 1, bar: 2 }], result: { foo: 1, bar: 2 } }, // docs
    { expr: ['literal', ['upper', 'hello']], result: ['upper', 'hello'] }, // docs
    { expr: ['literal', null], result: null },
    { expr: ['literal', ['nope', 'not compiled']], result: ['nope', 'not compiled'] },
    { expr: ['literal'], error: /exactly 1 argument, not 0/ },
  ],
  tuples: [
    { expr: ['tuples'], result: [] }, // docs
    { expr: ['tuples', 'a', 'b', 'c'], result: [['a', 'b', 'c']] }, // docs
    { expr: ['tuples', ['list', 1, 2], 3], result: [[1, 3], [2, 3]] }, // docs
    { expr: ['tuples', ['list', 1, 2], ['list', 3, null, 4, 5]], result: [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]] }, // docs
    { expr: ['tuples', ['list', 1, 2]], result: [[1], [2]] },
    { expr: ['tuples', 'a', null], result: [] },
    { expr: ['tuples', 'a', ['list']], result: [] },
    { expr: ['tuples', '_S.a', '_S.b'], source: { a: ['x', ['y']], b: { k: 1 } }, result: [['x', { k: 1 }], [['y'], { k: 1 }]] },
  ],
  hash128: [
    { expr: ['hash128', 'murmur3', 'abc'], result: ABC }, // docs
    { expr: ['hash128', 'murmur3', ['combine', 'abc', 123, 'def']], result: [[ABC, DEF]] }, // docs (hub/dtl/dtl-functions-misc.rst: a list's hashes as one list in a list)
    { expr: ['hash128', 'murmur3', ['bytes', 'abc']], result: ABC },
    // MurmurHash3_x64_128 reference values: empty input; seed 1; the fox sentence (h1 e34bbc7bbc071b6c, h2 7a433ca9c49a9347).
    { expr: ['hash128', 'murmur3', ''], result: 0 },
    { expr: ['hash128', 'murmur3', 1, ''], result: 108177238965372658051732455265379769525n },
    { expr: ['hash128', 'murmur3', 'The quick brown fox jumps over the lazy dog'], result: 162514929770263185971448983895935490924n },
    { expr: ['gt', ['hash128', 'murmur3', 'x'], 0], result: true },
    { expr: ['eq', ['hash128', 'murmur3', 42, 'abc'], ['hash128', 'murmur3', 'abc']], result: false },
    { expr: ['hash128', 'murmur3', '_S.seed', 'abc'], source: { seed: 0 }, result: ABC },
    { expr: ['hash128', 'murmur3', ['list', 1, null, true]], result: [[]] },
    { expr: ['hash128', 'murmur3', null], result: null },
    { expr: ['hash128', 'md5', 'abc'], error: /unknown hash algorithm "md5"/ },
  ],
  'is-changed': [
    // The previous version comes from a dataset source's runner; without one nobody knows, so null.
    { expr: ['is-changed', '_.name'], source: { _id: '1', name: 'a' }, result: null }, // docs
    { expr: ['is-changed', ['list', '_.height', '_.width']], source: { _id: '1' }, result: null }, // docs
    { expr: ['is-changed', ['-', '_.end', '_.start']], source: { _id: '1', start: 1, end: 2 }, result: null }, // docs
    { expr: ['is-changed'], error: /"is-changed" takes exactly 1 argument, not 0/ },
  ],
  encrypt: [
    { expr: ['decrypt', 'secret', ['encrypt', 'secret', ['list', 'a', 'b', 'c']]], result: ['a', 'b', 'c'] }, // docs
    { expr: ['is-bytes', ['encrypt', 'secret', 'a']], result: true }, // docs
    // The bytes hold the token's text, which starts with "gAAAAA" (version 0x80 and a timestamp): "Z0FBQUFB" in base64.
    { expr: ['matches', 'Z0FBQUFB*', ['base64-encode', ['encrypt', FERNET_KEY, 'x']]], result: true },
    { expr: ['decrypt', FERNET_KEY, ['encrypt', FERNET_KEY, 'hello wörld']], result: 'hello wörld' },
    { expr: ['neq', ['encrypt', 'k', 'same'], ['encrypt', 'k', 'same']], result: true },
    { expr: ['decrypt', 'k', ['encrypt', 'k', ['list', 1, { a: '~f1.5' }, ['bytes', 'raw'], null]]], result: ['1', '{"a": "~f1.5"}', 'raw'] },
    { expr: ['decrypt', '_S.key', ['encrypt', '_S.key', 'dyn']], source: { key: 'pw' }, result: 'dyn' },
    { expr: ['encrypt', '_S.key', 'x'], source: {}, result: null },
    { expr: ['encrypt', 'k', null], result: null },
  ],
  decrypt: [
    { expr: ['decrypt', 'secret', ['encrypt', 'secret', ['list', 'a', 'b', 'c']]], result: ['a', 'b', 'c'] }, // docs
    { expr: ['decrypt', FERNET_KEY, TOKEN_HELLO], result: 'hello wörld' },
    { expr: ['decrypt', FERNET_KEY, asBytes(TOKEN_HELLO)], result: 'hello wörld' },
    { expr: ['decrypt', 'my password', ['list', TOKEN_TOP_SECRET, 5, 'garbage']], result: ['top secret'] },
    { expr: ['decrypt', 'my password', TOKEN_BINARY], result: '~b/wAB' },
    { expr: ['decrypt', 'wrong password', TOKEN_TOP_SECRET], result: null },
    { expr: ['decrypt', 'my password', TOKEN_TOP_SECRET.slice(0, 60) + 'A' + TOKEN_TOP_SECRET.slice(61)], result: null },
    { expr: ['decrypt', 'my password', null], result: null },
    { expr: ['decrypt', 'k'], error: /"decrypt" takes exactly 2 arguments, not 1/ },
  ],
  'phonenumber-parse': [
    { expr: ['phonenumber-parse', '+4722222222'], result: '~rtel:+47-22-22-22-22' }, // docs
    { expr: ['phonenumber-parse', 'NO', '22225555'], result: '~rtel:+47-22-22-55-55' }, // docs
    { expr: ['phonenumber-parse', 'NO', ['list', '22222222', '22225555']], result: ['~rtel:+47-22-22-22-22', '~rtel:+47-22-22-55-55'] }, // docs
    { expr: ['phonenumber-parse', 'no', 22225555], result: '~rtel:+47-22-22-55-55' },
    { expr: ['phonenumber-parse', 'US', '(650) 253-0000'], result: '~rtel:+1-650-253-0000' },
    { expr: ['phonenumber-parse', 'NO', '+46 8 123 456 78'], result: '~rtel:+46-8-123-456-78' },
    { expr: ['phonenumber-parse', '22225555'], result: null },
    { expr: ['phonenumber-parse', 'NO', ['list', '123', 'not a number', true, null]], result: [] },
    { expr: ['phonenumber-parse', 'NO', null], result: null },
    { expr: ['phonenumber-parse', 'XX', '22225555'], error: /unknown region "XX"/ },
  ],
  'phonenumber-format': [
    { expr: ['phonenumber-format', 'e164', '~rtel:+47-22-22-22-22'], result: '4722222222' }, // docs
    { expr: ['phonenumber-format', 'national-e164', '~rtel:+47-22-22-22-22'], result: '22222222' }, // docs
    { expr: ['phonenumber-format', 'national', '~rtel:+47-22-22-22-22'], result: '22 22 22 22' }, // docs
    { expr: ['phonenumber-format', 'international', '~rtel:+47-22-22-22-22'], result: '+47 22 22 22 22' }, // docs
    { expr: ['phonenumber-format', 'rfc3966', '~rtel:+47-22-22-22-22'], result: 'tel:+47-22-22-22-22' }, // docs
    { expr: ['phonenumber-format', 'isocode', '~rtel:+47-22-22-22-22'], result: 'NO' }, // docs
    { expr: ['phonenumber-format', 'country-code', '~rtel:+47-22-22-22-22'], result: '47' }, // docs
    { expr: ['phonenumber-format', 'e164', ['list', '~rtel:+47-22-22-22-22', '~rtel:+47-22-22-55-55']], result: ['4722222222', '4722225555'] }, // docs
    { expr: ['phonenumber-format', 'international', ['phonenumber-parse', 'US', '650 253 0000']], result: '+1 650 253 0000' },
    { expr: ['phonenumber-format', 'national', 'tel:+4722222222'], result: '22 22 22 22' },
    { expr: ['phonenumber-format', 'e164', ['list', '+4722222222', '~rhttp://x/', 4722222222, null]], result: [] },
    { expr: ['phonenumber-format', 'e164', null], result: null },
    { expr: ['phonenumber-format', 'E.164', '~rtel:+47-22-22-22-22'], error: /unknown phone number format "E.164"/ },
  ],
};
