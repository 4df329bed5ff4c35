// Date and time: datetime-parse, datetime-format, now. Datetimes are UTC; formats use strptime/strftime directives
// (%Y %m %d %e %H %I %M %S %f %p %y %j %b %B %a %A %z, and %% for a percent sign).

import { compileFormatter, compileParser, type DateTimeFormatter, type DateTimeParser } from '../datetime.js';
import { expression, one, type FunctionSpec } from '../registry.js';
import { DateTime, isPlainString, mapValues, typedOf } from '../values.js';

const FAMILY = 'datetime';

export const datetimeFunctions: FunctionSpec[] = [
  expression({
    name: 'datetime-parse',
    family: FAMILY,
    params: [one('FORMAT', 'string'), one('VALUES', 'value')],
    description: 'Each string parsed as a datetime with the strptime-style format; strings that do not match are left out.',
    examples: [
      { expression: ['datetime-parse', '%Y-%m-%dT%H:%M:%S.%fZ', '2015-07-28T09:46:00.12345Z'], result: '~t2015-07-28T09:46:00.12345Z' },
      { expression: ['datetime-parse', '%Y-%m-%dT%H:%M:%S%z', '2015-07-28T09:46:00+0200'], result: '~t2015-07-28T07:46:00Z' },
      { expression: ['datetime-parse', '%d.%m.%Y', '28.07.2015'], result: '~t2015-07-28T00:00:00Z' },
      { expression: ['datetime-parse', '%d.%m.%Y', ['list', '28.07.2015', '01.01.1970']], result: ['~t2015-07-28T00:00:00Z', '~t1970-01-01T00:00:00Z'] },
    ],
    compile(b, cc) {
      const formatArg = b.one('FORMAT');
      let parse: DateTimeParser;
      try {
        parse = compileParser(formatArg.node as string);
      } catch (e) {
        cc.error(formatArg, (e as Error).message);
        parse = () => undefined;
      }
      const values = cc.expr(b.one('VALUES'));
      return (ctx) => mapValues(values(ctx), (x) => (isPlainString(x) ? parse(x) : undefined));
    },
  }),

  expression({
    name: 'datetime-format',
    family: FAMILY,
    params: [one('FORMAT', 'string'), one('VALUES', 'value')],
    description: 'Each datetime written as text with the strftime-style format; other values are left out.',
    examples: [
      { expression: ['datetime-format', '%Y-%m-%dT%H:%M:%SZ', ['datetime-parse', '%Y-%m-%d', '2015-07-28']], result: '2015-07-28T00:00:00Z' },
      { expression: ['datetime-format', '%d.%m.%Y %H:%M', '_S.updated'], source: { updated: '~t2024-02-29T13:05:00Z' }, result: '29.02.2024 13:05' },
    ],
    json: 'yes',
    compile(b, cc) {
      const formatArg = b.one('FORMAT');
      let format: DateTimeFormatter;
      try {
        format = compileFormatter(formatArg.node as string);
      } catch (e) {
        cc.error(formatArg, (e as Error).message);
        format = () => '';
      }
      const values = cc.expr(b.one('VALUES'));
      return (ctx) =>
        mapValues(values(ctx), (x) => {
          const t = typedOf(x);
          return t instanceof DateTime ? format(t) : undefined;
        });
    },
  }),

  expression({
    name: 'now',
    family: FAMILY,
    params: [],
    description: 'The current time as a datetime.',
    examples: [{ expression: ['gt', ['now'], '~t2020-01-01T00:00:00Z'], result: true }],
    compile: () => () => new DateTime(Date.now(), 0),
  }),
];
