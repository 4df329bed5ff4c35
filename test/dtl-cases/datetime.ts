// Table cases of the DTL datetime functions: several per function (normal values, null, lists, wrong types).
import type { ExpressionTable } from './types.js';

export const DATETIME: ExpressionTable = {
  'datetime-parse': [
    { expr: ['datetime-parse', '%Y-%m-%dT%H:%M:%S.%fZ', '2015-07-28T09:46:00.12345Z'], result: '~t2015-07-28T09:46:00.12345Z' }, // docs
    { expr: ['datetime-parse', '%Y-%m-%dT%H:%M:%S%z', '2015-07-28T09:46:00+0200'], result: '~t2015-07-28T07:46:00Z' }, // docs
    { expr: ['datetime-parse', '%d.%m.%Y', '28.07.2015'], result: '~t2015-07-28T00:00:00Z' }, // docs
    { expr: ['datetime-parse', '%d.%m.%Y', ['list', '28.07.2015', '01.01.1970']], result: ['~t2015-07-28T00:00:00Z', '~t1970-01-01T00:00:00Z'] }, // docs
    { expr: ['datetime-parse', '%Y-%m-%d', null], result: null },
    { expr: ['datetime-parse', '%Y-%m-%d', 'not a date'], result: null },
    { expr: ['datetime-parse', '%Y-%m-%d', '2015-02-30'], result: null },
    { expr: ['datetime-parse', '%Y', 2015], result: null },
    { expr: ['datetime-parse', '%Y-%m-%d', ['list', '2015-01-01', 5, 'x', '2016-01-01']], result: ['~t2015-01-01T00:00:00Z', '~t2016-01-01T00:00:00Z'] },
    { expr: ['datetime-parse', '%I:%M %p', '01:30 PM'], result: '~t1900-01-01T13:30:00Z' },
    { expr: ['datetime-parse', '%I %p', '12 am'], result: '~t1900-01-01T00:00:00Z' },
    { expr: ['datetime-parse', '%d %b %Y', '05 mar 2021'], result: '~t2021-03-05T00:00:00Z' },
    { expr: ['datetime-parse', '%B %e, %Y', 'July 4, 1976'], result: '~t1976-07-04T00:00:00Z' },
    { expr: ['datetime-parse', '%y%m%d', '991231'], result: '~t1999-12-31T00:00:00Z' },
    { expr: ['datetime-parse', '%y%m%d', '150101'], result: '~t2015-01-01T00:00:00Z' },
    { expr: ['datetime-parse', '%Y-%j', '2016-366'], result: '~t2016-12-31T00:00:00Z' },
    { expr: ['datetime-parse', '%H:%M:%S.%f%z', '10:00:00.123456789-01:30'], result: '~t1900-01-01T11:30:00.123456789Z' },
    { expr: ['datetime-parse', '%Y%%%m', '2020%05'], result: '~t2020-05-01T00:00:00Z' },
    { expr: ['datetime-parse', '%Y-%m-%d %H:%M', '2020-05-01   10:30'], result: '~t2020-05-01T10:30:00Z' },
    { expr: ['datetime-parse', '%Q', 'x'], error: /unsupported directive "%Q"/ },
    { expr: ['datetime-parse', 5, 'x'], error: /FORMAT of "datetime-parse" must be a literal string/ },
  ],
  'datetime-format': [
    { expr: ['datetime-format', '%Y-%m-%dT%H:%M:%SZ', ['datetime-parse', '%Y-%m-%d', '2015-07-28']], result: '2015-07-28T00:00:00Z' }, // docs
    { expr: ['datetime-format', '%d.%m.%Y %H:%M', '_S.updated'], source: { updated: '~t2024-02-29T13:05:00Z' }, result: '29.02.2024 13:05' },
    { expr: ['datetime-format', '%Y', null], result: null },
    { expr: ['datetime-format', '%Y', ['list', '~t2020-05-05T00:00:00Z', 'x', 5, '2021-01-01']], result: ['2020'] },
    { expr: ['datetime-format', '%S.%f', '~t2020-01-01T00:00:07.1234567Z'], result: '07.123456' },
    { expr: ['datetime-format', '%a %A %b %B %j %e %y', '~t2021-03-05T00:00:00Z'], result: 'Fri Friday Mar March 064 5 21' },
    { expr: ['datetime-format', '%I:%M %p %z %Z %%', '~t2021-03-05T15:04:00Z'], result: '03:04 PM +0000 UTC %' },
    { expr: ['datetime-format', '%Y-%m-%d', '~t0099-12-31'], result: '0099-12-31' },
    { expr: ['datetime-format', '%Y', 'not a datetime'], result: null },
    { expr: ['datetime-format', '%K', '~t2020-01-01T00:00:00Z'], error: /unsupported directive "%K"/ },
  ],
  now: [
    { expr: ['gt', ['now'], '~t2020-01-01T00:00:00Z'], result: true },
    { expr: ['lt', ['now'], '~t2200-01-01T00:00:00Z'], result: true },
    { expr: ['datetime-format', '%Y', ['now']], result: String(new Date().getUTCFullYear()) },
    { expr: ['now', 1], error: /"now" takes exactly 0 arguments, not 1/ },
  ],
};
