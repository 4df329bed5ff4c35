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
    // With a time zone: the text is wall-clock time there (the docs print 2018-08-08 for this instant, a typo).
    { expr: ['datetime-parse', 'Europe/Oslo', '%Y-%m-%dT%H:%M:%S', '2018-08-18T12:39:01'], result: '~t2018-08-18T10:39:01Z' }, // docs
    { expr: ['datetime-parse', 'Europe/Oslo', '%Y-%m-%d %H:%M', '2018-01-18 12:39'], result: '~t2018-01-18T11:39:00Z' },
    { expr: ['datetime-parse', 'America/New_York', '%Y-%m-%d %H:%M', ['list', '2021-07-01 08:00', 'x']], result: ['~t2021-07-01T12:00:00Z'] },
    { expr: ['datetime-parse', 'Europe/Oslo', '%Y-%m-%dT%H:%M:%S%z', '2018-08-18T12:39:01+0000'], result: '~t2018-08-18T12:39:01Z' },
    { expr: ['datetime-parse', 'UTC', '%Y', '2018'], result: '~t2018-01-01T00:00:00Z' },
    // 02:30 does not exist in Oslo on 2021-03-28 (clocks jump 02:00 -> 03:00): read with the winter offset.
    { expr: ['datetime-parse', 'Europe/Oslo', '%Y-%m-%d %H:%M', '2021-03-28 02:30'], result: '~t2021-03-28T01:30:00Z' },
    // 02:30 happens twice on 2021-10-31: the earlier instant.
    { expr: ['datetime-parse', 'Europe/Oslo', '%Y-%m-%d %H:%M', '2021-10-31 02:30'], result: '~t2021-10-31T00:30:00Z' },
    { expr: ['datetime-parse', 'Mars/Olympus', '%Y', '2018'], error: /unknown time zone "Mars\/Olympus"/ },
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
    { expr: ['datetime-format', '%Y-%m-%d %H:%M:%S', ['datetime-parse', '%Y-%m-%dT%H:%M:%S', '2018-08-18T12:39:01']], result: '2018-08-18 12:39:01' }, // docs
    { expr: ['datetime-format', 'Europe/Oslo', '%Y-%m-%d %H:%M:%S', ['datetime-parse', '%Y-%m-%dT%H:%M:%S', '2018-08-18T12:39:01']], result: '2018-08-18 14:39:01' }, // docs
    {
      expr: ['datetime-format', 'Europe/Oslo', '%Y-%m-%d %H:%M:%S', ['datetime-parse', 'Europe/Oslo', '%Y-%m-%dT%H:%M:%S', '2018-08-18T12:39:01']],
      result: '2018-08-18 12:39:01',
    }, // docs
    { expr: ['datetime-format', 'Europe/Oslo', '%H:%M %z %Z %%', '~t2021-01-15T12:00:00Z'], result: '13:00 +0100 Europe/Oslo %' },
    { expr: ['datetime-format', 'Asia/Kolkata', '%d %H:%M:%S.%f', '~t2021-12-31T20:00:00.5Z'], result: '01 01:30:00.500000' },
    { expr: ['datetime-format', 'Europe/Oslo', '%Y', ['list', null, 'x', '~t2021-12-31T23:30:00Z']], result: ['2022'] },
    { expr: ['datetime-format', 'Nowhere', '%Y', '~t2021-01-15T12:00:00Z'], error: /unknown time zone "Nowhere"/ },
  ],
  now: [
    { expr: ['gt', ['now'], '~t2020-01-01T00:00:00Z'], result: true },
    { expr: ['lt', ['now'], '~t2200-01-01T00:00:00Z'], result: true },
    { expr: ['datetime-format', '%Y', ['now']], result: String(new Date().getUTCFullYear()) },
    { expr: ['now', 1], error: /"now" takes exactly 0 arguments, not 1/ },
  ],
  datetime: [
    { expr: ['datetime', '2015-07-28T09:46:00.12345Z'], result: '~t2015-07-28T09:46:00.12345Z' }, // docs
    { expr: ['datetime', 1438076760123450000n], result: '~t2015-07-28T09:46:00.12345Z' }, // docs (a 19-digit integer: read exactly, as a bigint)
    { expr: ['datetime', 1438076760123450001n], result: '~t2015-07-28T09:46:00.123450001Z' }, // the last nanosecond counts
    { expr: ['count', ['datetime', ['list', ['now'], ['now'], 'hello']]], result: 2 }, // docs
    { expr: ['is-datetime', ['datetime', ['now'], 'hello']], result: true }, // docs
    { expr: ['datetime', null], result: null },
    { expr: ['datetime', ['now'], null], result: null },
    { expr: ['datetime', 0], result: '~t1970-01-01T00:00:00Z' },
    { expr: ['datetime', -1], result: '~t1969-12-31T23:59:59.999999999Z' },
    { expr: ['datetime', '~f1438076760123450001'], result: '~t2015-07-28T09:46:00.123450001Z' },
    { expr: ['datetime', '2015-07-28'], result: '~t2015-07-28' },
    { expr: ['datetime', '2015-07-28 09:46'], result: '~t2015-07-28T09:46:00Z' },
    { expr: ['datetime', '2015-07-28T09:46:00+02:00'], result: '~t2015-07-28T07:46:00Z' },
    { expr: ['datetime', '2015-07-28T09:46:00.1234567891Z'], result: '~t2015-07-28T09:46:00.123456789Z' },
    { expr: ['datetime', '~t2020-02-29T10:00:00Z'], result: '~t2020-02-29T10:00:00Z' },
    { expr: ['datetime', ['list', '2015-02-30', 1.5, true, 'x', { a: 1 }, '~rhttp://x/']], result: [] },
    { expr: ['datetime', ['string', '_.'], ['list', '2020-01-01T10:00:00Z', 'n/a', 2.5]], result: ['~t2020-01-01T10:00:00Z', 'n/a', '2.5'] },
    { expr: ['datetime', 'a', 'b', 'c'], error: /"datetime" takes 1 to 2 arguments, not 3/ },
  ],
  'datetime-plus': [
    { expr: ['datetime-plus', 'day', 1, ['datetime-parse', '%Y-%m-%d', '2015-07-28']], result: '~t2015-07-29T00:00:00Z' }, // docs
    { expr: ['datetime-plus', 'hour', -1, ['datetime-parse', '%Y-%m-%d', '2016-03-01']], result: '~t2016-02-29T23:00:00Z' }, // docs
    {
      expr: ['datetime-plus', 'year', 1, ['list', ['datetime-parse', '%Y-%m-%d', '1971-01-01'], ['datetime-parse', '%Y-%m-%d', '1950-06-01']]],
      result: ['~t1972-01-01T00:00:00Z', '~t1951-06-01T00:00:00Z'],
    }, // docs
    { expr: ['datetime-plus', 'month', 1, '~t2021-01-31T10:00:00Z'], result: '~t2021-02-28T10:00:00Z' },
    { expr: ['datetime-plus', 'month', -13, '~t2021-03-31T10:00:00Z'], result: '~t2020-02-29T10:00:00Z' },
    { expr: ['datetime-plus', 'year', 1, '~t2020-02-29T00:00:00Z'], result: '~t2021-02-28T00:00:00Z' },
    { expr: ['datetime-plus', 'week', 2, '~t2021-12-25T00:00:00Z'], result: '~t2022-01-08T00:00:00Z' },
    { expr: ['datetime-plus', 'minute', 90, '~t2021-01-01T23:00:00Z'], result: '~t2021-01-02T00:30:00Z' },
    { expr: ['datetime-plus', 'second', -1, '~t2021-01-01T00:00:00Z'], result: '~t2020-12-31T23:59:59Z' },
    { expr: ['datetime-plus', 'millisecond', 1, '~t2021-01-01T00:00:00.999Z'], result: '~t2021-01-01T00:00:01Z' },
    { expr: ['datetime-plus', 'microsecond', 1, '~t2021-01-01T00:00:00Z'], result: '~t2021-01-01T00:00:00.000001Z' },
    { expr: ['datetime-plus', 'nanosecond', -1, '~t1970-01-01T00:00:00Z'], result: '~t1969-12-31T23:59:59.999999999Z' },
    { expr: ['datetime-plus', 'day', 1, '~t2021-01-31'], result: '~t2021-02-01' },
    { expr: ['datetime-plus', 'day', '_S.n', '~t2021-01-31T00:00:00Z'], source: { n: 3 }, result: '~t2021-02-03T00:00:00Z' },
    { expr: ['datetime-plus', 'day', '_S.n', '~t2021-01-31T00:00:00Z'], source: { n: 'x' }, result: null },
    { expr: ['datetime-plus', 'year', 1, '~t9999-06-01T00:00:00Z'], result: null },
    { expr: ['datetime-plus', 'day', 1, null], result: null },
    { expr: ['datetime-plus', 'day', 1, ['list', '2021-01-01', 5, '~t2021-01-01T00:00:00Z']], result: ['~t2021-01-02T00:00:00Z'] },
    { expr: ['datetime-plus', 'fortnight', 1, '~t2021-01-01T00:00:00Z'], error: /unknown date part "fortnight"/ },
    { expr: ['datetime-plus', 'day', 1.5, '~t2021-01-01T00:00:00Z'], error: /AMOUNT of "datetime-plus" must be an integer/ },
  ],
  'datetime-diff': [
    // The current documentation gives START minus END (older pages had the opposite sign).
    { expr: ['datetime-diff', 'day', ['datetime-parse', '%Y-%m-%d', '2015-07-28'], ['datetime-parse', '%Y-%m-%d', '2015-07-29']], result: -1 }, // docs
    { expr: ['datetime-diff', 'day', ['datetime-parse', '%Y-%m-%d', '2015-07-29'], ['datetime-parse', '%Y-%m-%d', '2015-07-28']], result: 1 }, // docs
    { expr: ['datetime-diff', 'year', ['datetime-parse', '%Y-%m-%d', '2015-03-02'], ['datetime-parse', '%Y-%m-%d', '2016-07-29']], result: -1 }, // docs
    { expr: ['datetime-diff', 'month', ['datetime-parse', '%Y-%m-%d', '2015-03-02'], ['datetime-parse', '%Y-%m-%d', '2016-07-29']], result: -16 }, // docs
    { expr: ['datetime-diff', 'year', '~t2016-02-01T00:00:00Z', '~t2015-03-01T00:00:00Z'], result: 0 },
    { expr: ['datetime-diff', 'month', '~t2021-03-30T00:00:00Z', '~t2021-01-31T00:00:00Z'], result: 1 },
    { expr: ['datetime-diff', 'month', '~t2021-03-31T00:00:00Z', '~t2021-01-31T00:00:00Z'], result: 2 },
    { expr: ['datetime-diff', 'week', '~t2021-01-09T00:00:00Z', '~t2021-01-01T00:00:00Z'], result: 1 },
    { expr: ['datetime-diff', 'week', '~t2021-01-01T00:00:00Z', '~t2021-01-09T00:00:00Z'], result: -1 },
    { expr: ['datetime-diff', 'hour', '~t2021-01-01T10:59:59Z', '~t2021-01-01T09:00:00Z'], result: 1 },
    { expr: ['datetime-diff', 'second', '~t2021-01-01T00:00:01.5Z', '~t2021-01-01T00:00:00Z'], result: 1 },
    { expr: ['datetime-diff', 'nanosecond', '~t2021-01-01T00:00:00.000000123Z', '~t2021-01-01T00:00:00Z'], result: 123 },
    { expr: ['datetime-diff', 'day', ['list', '~t2021-01-03T00:00:00Z', '~t2000-01-01T00:00:00Z'], '~t2021-01-01'], result: 2 },
    { expr: ['datetime-diff', 'day', null, '~t2021-01-01T00:00:00Z'], result: null },
    { expr: ['datetime-diff', 'day', '2021-01-02', '~t2021-01-01T00:00:00Z'], result: null },
    { expr: ['datetime-diff', 'decade', '~t2021-01-02T00:00:00Z', '~t2021-01-01T00:00:00Z'], error: /unknown date part "decade"/ },
  ],
  'datetime-shift': [
    { expr: ['datetime-shift', 'Europe/Oslo', 'UTC', ['datetime-parse', '%Y/%m/%d %H:%M', '2015/07/28 09:46']], result: '~t2015-07-28T07:46:00Z' }, // docs
    { expr: ['datetime-shift', 'UTC', 'Europe/Oslo', ['datetime-parse', '%Y/%m/%d %H:%M', '2015/07/28 09:46']], result: '~t2015-07-28T11:46:00Z' }, // docs
    {
      expr: [
        'datetime-shift',
        'Europe/Oslo',
        'UTC',
        ['list', ['datetime-parse', '%Y/%m/%d %H:%M', '2015/07/28 09:46'], ['datetime-parse', '%Y/%m/%d %H:%M', '2015/07/28 04:46']],
      ],
      result: ['~t2015-07-28T07:46:00Z', '~t2015-07-28T02:46:00Z'],
    }, // docs
    { expr: ['datetime-shift', 'Europe/Oslo', 'UTC', '~t2015-01-28T09:46:00.123456789Z'], result: '~t2015-01-28T08:46:00.123456789Z' },
    { expr: ['datetime-shift', 'America/New_York', 'Asia/Tokyo', '~t2021-07-01T20:00:00Z'], result: '~t2021-07-02T09:00:00Z' },
    { expr: ['datetime-shift', 'UTC', 'UTC', '~t2021-07-01T20:00:00Z'], result: '~t2021-07-01T20:00:00Z' },
    { expr: ['datetime-shift', 'Europe/Oslo', 'UTC', '~t2021-07-01'], result: '~t2021-06-30T22:00:00Z' },
    { expr: ['datetime-shift', 'Europe/Oslo', 'UTC', null], result: null },
    { expr: ['datetime-shift', 'Europe/Oslo', 'UTC', ['list', '2021-07-01T20:00:00Z', 1]], result: [] },
    { expr: ['datetime-shift', 'Europe/Oslo', 'Atlantis', '~t2021-07-01T20:00:00Z'], error: /unknown time zone "Atlantis"/ },
  ],
  'is-datetime': [
    { expr: ['is-datetime', ['now']], result: true }, // docs
    { expr: ['is-datetime', ['datetime', '2015-07-28T09:46:00.12345Z']], result: true }, // docs
    { expr: ['is-datetime', '2015-07-28T09:46:00.12345Z'], result: false }, // docs
    { expr: ['is-datetime', ['list', '1', 2]], result: false }, // docs
    { expr: ['is-datetime', '~t2015-07-28'], result: true },
    { expr: ['is-datetime', '_S.at'], source: { at: ['~t2015-07-28T00:00:00Z', 1] }, result: true },
    { expr: ['is-datetime', ['list', 1, '~t2015-07-28T00:00:00Z']], result: false },
    { expr: ['is-datetime', null], result: false },
    { expr: ['is-datetime', ['list']], result: false },
  ],
};
