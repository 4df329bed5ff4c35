// A parse format cannot hang the hub (issue 32, point 1): "datetime-parse" compiled its format into one regular
// expression, and formats of adjacent variable-width directives ("%f%f%f%f%f%f%f%f%fX") backtracked exponentially
// on a string of digits (7 directives on 40 digits: 150 ms, each more about 8 times that). The format is now
// matched step by step, each step longest first with failed positions remembered: the same answers (the ambiguous
// cases below are those the regular expression gave), in time linear in the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileParser } from '../../../hub-core/dtl/index.js';
import { compileExpression, encode } from '../../../hub-core/dtl/index.js';

const parse = (format: string, text: string): string | undefined => compileParser(format)(text)?.toString();

test('hostile parse formats answer at once', () => {
  const digits = '1'.repeat(40);
  for (const format of ['%f'.repeat(12) + 'X', '%d%m%H%M%S%d%m%H%M%S%d%m%H%M%S%d%m%H%M%S%dX', '%j'.repeat(15) + 'X', '%e'.repeat(15) + 'X']) {
    const t0 = performance.now();
    assert.equal(parse(format, digits), undefined, format);
    const ms = performance.now() - t0;
    assert.ok(ms < 200, `${format} took ${ms.toFixed(1)} ms`);
  }
  const t0 = performance.now();
  const r = compileExpression(['datetime-parse', '%f%f%f%f%f%f%f%f%f%f%f%fX', '_S.s']).evaluate({ source: { s: '9'.repeat(60) } });
  assert.equal(encode(r), null);
  assert.ok(performance.now() - t0 < 500);
});

test('ambiguous texts parse as the regular expression parsed them (each directive longest first)', () => {
  assert.equal(parse('%d%m%Y', '1232020'), '~t2020-03-12T00:00:00Z');
  assert.equal(parse('%d%m%Y', '3112020'), '~t2020-01-31T00:00:00Z');
  assert.equal(parse('%H%M', '123'), '~t1900-01-01T12:03:00Z');
  assert.equal(parse('%Y%m%d', '2020111'), '~t2020-11-01T00:00:00Z');
  assert.equal(parse('%Y-%m-%dT%H:%M:%S.%f%z', '2020-01-02T03:04:05.123+01:00'), '~t2020-01-02T02:04:05.123Z');
  assert.equal(parse('%d %B %Y', '5   march 2021'), '~t2021-03-05T00:00:00Z');
  assert.equal(parse('%d%m', '1x'), undefined);
});
