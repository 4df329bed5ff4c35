// Numbers and casts: integer.

import { expression, one, optional, type FunctionSpec } from '../registry.js';
import { Decimal, mapValues, typedOf, type DtlValue } from '../values.js';
import { withCurrent } from './util.js';

const FAMILY = 'numbers';

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/;

/** A value as an integer: numbers and decimals truncated toward zero, strings of digits parsed; else undefined. */
export function toInteger(v: DtlValue): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : undefined;
  if (typeof v === 'string') {
    if (INTEGER_TEXT.test(v)) return Number(v);
    const t = typedOf(v);
    return t instanceof Decimal ? Number(t.truncate()) : undefined;
  }
  const t = typedOf(v);
  return t instanceof Decimal ? Number(t.truncate()) : undefined;
}

export const numberFunctions: FunctionSpec[] = [
  expression({
    name: 'integer',
    family: FAMILY,
    params: [optional('DEFAULT', 'default'), one('VALUES', 'value')],
    description: 'Each value as an integer; values that cannot be converted are left out, or replaced by DEFAULT (with _ bound to them).',
    examples: [
      { expression: ['integer', '1'], result: 1 },
      { expression: ['integer', ['list', '1', '~rhttp://www.example.org/', 124.4, 12345]], result: [1, 124, 12345] },
      { expression: ['integer', ['integer', 0], ['list', '1', '~rhttp://www.example.org/', '10^2', 12345]], result: [1, 0, 0, 12345] },
      {
        expression: ['integer', ['string', '_.'], ['list', '1', '~rhttp://www.example.org/', '10^2', 12345]],
        result: [1, 'http://www.example.org/', '10^2', 12345],
      },
    ],
    json: 'args',
    compile(b, cc) {
      const defArg = b.opt('DEFAULT');
      const def = defArg === undefined ? undefined : cc.expr(defArg);
      const values = cc.expr(b.one('VALUES'));
      if (def === undefined) return (ctx) => mapValues(values(ctx), toInteger);
      return (ctx) => mapValues(values(ctx), (x) => (x === null ? undefined : (toInteger(x) ?? withCurrent(ctx, x, def))));
    },
  }),
];
