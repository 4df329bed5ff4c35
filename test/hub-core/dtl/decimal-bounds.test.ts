// A decimal's exponent cannot make the hub build a number of millions of digits (issue 32, point 1: nothing a user
// can type hangs anything). "~f1e99999999" was read as a 100-million-digit integer: 41 s on the thread that read
// it, in a dataset profile, a preview or a pump run. Past MAX_DECIMAL_EXPONENT the text is not a decimal number, as
// "~fabc" is not: `decimal` gives null, `is-decimal` false, and sums with it null (docs/dtl.md, "Decimals").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileExpression, encode, MAX_DECIMAL_EXPONENT, type DtlDict } from '../../../hub-core/dtl/index.js';

const run = (expr: unknown, source: DtlDict = {}): unknown => encode(compileExpression(expr).evaluate({ source }));

test('exponents up to the bound are read exactly; beyond it the text is no decimal', () => {
  assert.equal(MAX_DECIMAL_EXPONENT, 100_000);
  // 1e5 is 100000 (the exponent moves the point five places); 1.5e-3 is 0.0015.
  assert.equal(run(['eq', ['decimal', '1e5'], ['decimal', '100000']]), true);
  assert.equal(run(['eq', ['decimal', '1.5e-3'], ['decimal', '0.0015']]), true);
  // At the bound: 1 followed by 100,000 zeros, and 1 at the 100,000th place after the point.
  assert.equal(String(run(['decimal', '1e100000'])).length, '~f1'.length + 100_000);
  assert.equal(String(run(['decimal', '1e-100000'])).length, '~f0.'.length + 100_000);
  for (const text of ['1e100001', '1e-100001', '1e99999999', '-2.5E+999999999']) {
    assert.equal(run(['decimal', text]), null, text);
    assert.equal(run(['is-decimal', '_S.x'], { x: '~f' + text }), false, text);
    assert.equal(run(['plus', '_S.x', 1], { x: '~f' + text }), null, text);
  }
});

test('a power, root or quotient whose exponent passes the bound is null, not a number of millions of digits', () => {
  // DTL's "pow" takes the exponent first: ["pow", N, X] is X to the power N. 1.5^100000000 is about 8.05e17609125:
  // 28 significant digits (the decimal precision) but an exponent far past 100,000.
  assert.equal(run(['pow', 100_000_000, '~f1.5']), null);
  assert.equal(run(['eq', ['pow', '~f0.5', '~f1e-100000'], ['decimal', '1e-50000']]), true);
  // Within the bound nothing changes: 2^10 is exact.
  assert.equal(run(['pow', 10, '~f2']), '~f1024');
});
