import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import * as E from 'fp-ts/lib/Either.js';
import {
  DATE_YEARS,
  calendarProblem,
  dateBoundValues,
  instantProblem,
  isDateSpan,
  parseDateSpan,
  zoneOffset,
} from '../../lib/core/date-bounds.js';
import type { DateSpan } from '../../lib/types.js';
import { calendarDayArb, calendarMonthArb, impossibleDayArb, zoneArb } from '../arbitraries/filter-value-arb.js';

const span = (text: string, kind: 'date' | 'dateonly' = 'date', zone = '+00:00') =>
  E.getOrElseW((left: string) => assert.fail(left))(parseDateSpan(text, kind, zone));
const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : value);
const isoSpan = ({ from, to }: DateSpan) => ({ from: iso(from), to: iso(to) });
const DAY = 86_400_000;

describe('parseDateSpan', () => {
  it('returns the whole day, from 00:00:00.000 to 23:59:59.999 UTC, for a date-only value', () => {
    assert.deepEqual(isoSpan(span('2024-12-31')), { from: '2024-12-31T00:00:00.000Z', to: '2024-12-31T23:59:59.999Z' });
  });

  it('returns the whole month and the whole year for YYYY-MM and YYYY', () => {
    assert.deepEqual(isoSpan(span('2024-02')), { from: '2024-02-01T00:00:00.000Z', to: '2024-02-29T23:59:59.999Z' });
    assert.deepEqual(isoSpan(span('2024')), { from: '2024-01-01T00:00:00.000Z', to: '2024-12-31T23:59:59.999Z' });
  });

  it('returns days of the time zone: +02:00 starts the day two hours before UTC does', () => {
    assert.deepEqual(isoSpan(span('2024-12-31', 'date', '+02:00')), {
      from: '2024-12-30T22:00:00.000Z',
      to: '2024-12-31T21:59:59.999Z',
    });
    assert.deepEqual(isoSpan(span('2024-07-01', 'date', 'Europe/Paris')), {
      from: '2024-06-30T22:00:00.000Z',
      to: '2024-07-01T21:59:59.999Z',
    });
  });

  it('returns one instant for a value with a time, read in the zone unless it names an offset', () => {
    assert.deepEqual(isoSpan(span('2024-12-31T18:00', 'date', '+02:00')), {
      from: '2024-12-31T16:00:00.000Z',
      to: '2024-12-31T16:00:00.000Z',
    });
    assert.deepEqual(isoSpan(span('2024-12-31T18:00:00.5Z', 'date', '+02:00')), {
      from: '2024-12-31T18:00:00.500Z',
      to: '2024-12-31T18:00:00.500Z',
    });
    assert.deepEqual(isoSpan(span('2024-12-31 18:00:00-0130')), {
      from: '2024-12-31T19:30:00.000Z',
      to: '2024-12-31T19:30:00.000Z',
    });
  });

  it('returns first and last days for a DATEONLY column', () => {
    assert.deepEqual(span('2024-03', 'dateonly'), { from: '2024-03-01', to: '2024-03-31' });
    assert.deepEqual(span('2023-02-28', 'dateonly'), { from: '2023-02-28', to: '2023-02-28' });
    assert.deepEqual(span('1900', 'dateonly'), { from: '1900-01-01', to: '1900-12-31' });
  });

  it('returns a reason for dates and times that do not exist, and for other text', () => {
    assert.deepEqual(
      parseDateSpan('2024-02-30', 'date', '+00:00'),
      E.left('must be a date that exists: 2024-02 has 29 days'),
    );
    assert.deepEqual(
      parseDateSpan('2023-02-29', 'dateonly', '+00:00'),
      E.left('must be a date that exists: 2023-02 has 28 days'),
    );
    assert.deepEqual(
      parseDateSpan('2024-13', 'date', '+00:00'),
      E.left('must be a date that exists: there is no month 13'),
    );
    assert.deepEqual(
      parseDateSpan('2024-01-01T24:00', 'date', '+00:00'),
      E.left('must be a time that exists: 2024-01-01T24:00'),
    );
    assert.deepEqual(parseDateSpan('yesterday', 'date', '+00:00'), E.left('must be an ISO 8601 date'));
    assert.deepEqual(
      parseDateSpan('2024-01-01T10:00', 'dateonly', '+00:00'),
      E.left('must be a date (YYYY-MM-DD, YYYY-MM or YYYY)'),
    );
  });

  describe('laws', () => {
    it('a date-only lte bound includes every instant of that day, and gt excludes them all', () => {
      fc.assert(
        fc.property(calendarDayArb, zoneArb, fc.integer({ min: 0, max: DAY - 1 }), ({ text }, zone, into) => {
          const day = span(text, 'date', zone);
          const [lte] = dateBoundValues('lte', [day]) as [Date];
          const [gte] = dateBoundValues('gte', [day]) as [Date];
          const length = lte.getTime() - gte.getTime() + 1;
          const instant = gte.getTime() + (into % length);
          assert.ok(gte.getTime() <= instant && instant <= lte.getTime());
          assert.deepEqual(dateBoundValues('gt', [day]), [lte]);
          // The bounds are local midnights: the next day starts one millisecond after lte.
          assert.equal(
            span(
              new Date(Date.parse(`${text}T00:00:00Z`) + DAY + 3 * 3_600_000).toISOString().slice(0, 10),
              'date',
              zone,
            ).from.valueOf(),
            lte.getTime() + 1,
          );
        }),
      );
    });

    it('a day is 24 hours long at a fixed offset, and starts at the offset before UTC midnight', () => {
      fc.assert(
        fc.property(calendarDayArb, fc.constantFrom('+00:00', '+02:00', '-05:30', '+14:00'), ({ text }, zone) => {
          const { from, to } = span(text, 'date', zone) as { from: Date; to: Date };
          assert.equal(to.getTime() - from.getTime(), DAY - 1);
          assert.equal(from.getTime(), Date.parse(`${text}T00:00:00Z`) - zoneOffset(zone, 0) * 60_000);
        }),
      );
    });

    it('month btw covers exactly the days of those months', () => {
      fc.assert(
        fc.property(calendarMonthArb, calendarMonthArb, calendarDayArb, (a, b, d) => {
          const [low, high] = dateBoundValues('btw', [span(a.text, 'dateonly'), span(b.text, 'dateonly')]) as [
            string,
            string,
          ];
          const inside = low <= d.text && d.text <= high;
          const months = (y: number, m: number) => y * 12 + m;
          assert.equal(
            inside,
            months(a.year, a.month) <= months(d.year, d.month) && months(d.year, d.month) <= months(b.year, b.month),
          );
          const [from, to] = dateBoundValues('btw', [span(a.text), span(b.text)]) as [Date, Date];
          const noon = Date.parse(`${d.text}T12:00:00Z`);
          assert.equal(from.getTime() <= noon && noon <= to.getTime(), inside);
        }),
      );
    });

    it('refuses every day that does not exist', () => {
      fc.assert(
        fc.property(impossibleDayArb, fc.constantFrom<'date' | 'dateonly'>('date', 'dateonly'), (text, kind) => {
          assert.ok(E.isLeft(parseDateSpan(text, kind, '+00:00')));
        }),
      );
    });

    it('never throws', () => {
      fc.assert(
        fc.property(
          fc.string(),
          fc.constantFrom<'date' | 'dateonly'>('date', 'dateonly'),
          fc.oneof(zoneArb, fc.string()),
          (text, kind, zone) => {
            parseDateSpan(text, kind, zone);
          },
        ),
      );
    });
  });
});

describe('dateBoundValues', () => {
  const march = { from: '2024-03-01', to: '2024-03-31' };
  const day = { from: '2024-04-02', to: '2024-04-02' };

  it('returns the end for gt, lte and gtn, the start for gte, lt and ltn', () => {
    for (const op of ['gt', 'lte', 'gtn'] as const) assert.deepEqual(dateBoundValues(op, [march]), ['2024-03-31']);
    for (const op of ['gte', 'lt', 'ltn'] as const) assert.deepEqual(dateBoundValues(op, [march]), ['2024-03-01']);
  });

  it('returns the first start and the last end for btw', () => {
    assert.deepEqual(dateBoundValues('btw', [march, day]), ['2024-03-01', '2024-04-02']);
  });

  it('returns spans for eq, neq, in and nin, a single day or instant as its plain value', () => {
    assert.deepEqual(dateBoundValues('in', [march, day]), [march, '2024-04-02']);
    const instant = new Date('2024-01-01T10:00:00Z');
    assert.deepEqual(dateBoundValues('eq', [{ from: instant, to: instant }]), [instant]);
    assert.ok(isDateSpan(dateBoundValues('neq', [span('2024-01-01')])[0]));
  });
});

describe('zoneOffset', () => {
  it('returns minutes east of UTC for fixed offsets and IANA names, daylight saving included', () => {
    assert.equal(zoneOffset('-05:30', 0), -330);
    assert.equal(zoneOffset('Z', 0), 0);
    assert.equal(zoneOffset('Europe/Paris', Date.UTC(2024, 0, 15)), 60);
    assert.equal(zoneOffset('Europe/Paris', Date.UTC(2024, 6, 15)), 120);
    assert.equal(zoneOffset('Not/AZone', 0), 0);
  });
});

describe('calendarProblem', () => {
  it('returns undefined for real dates and times, leap days included', () => {
    for (const text of [
      '2024-02-29',
      '2000-02-29',
      '1000-01-01',
      '9999-12-31T23:59:59.999Z',
      '2024-06-30 23:59',
      '2024-01-31T00:00:00+02:00',
    ]) {
      assert.equal(calendarProblem(text), undefined, text);
    }
  });

  it('returns a reason for a day, month or time that does not exist, and for years outside 1000 to 9999', () => {
    assert.equal(calendarProblem('2024-02-30'), 'must be a date that exists: 2024-02 has 29 days');
    assert.equal(calendarProblem('2023-02-29'), 'must be a date that exists: 2023-02 has 28 days');
    assert.equal(calendarProblem('1900-02-29T10:00:00Z'), 'must be a date that exists: 1900-02 has 28 days');
    assert.equal(calendarProblem('2024-13-01'), 'must be a date that exists: there is no month 13');
    assert.equal(calendarProblem('2024-01-01T24:00:00Z'), 'must be a time that exists: 2024-01-01T24:00:00Z');
    assert.equal(calendarProblem('0000-01-01'), 'must be a date from year 1000 to 9999');
    assert.equal(calendarProblem('0999-12-31'), 'must be a date from year 1000 to 9999');
    assert.deepEqual(DATE_YEARS, { min: 1000, max: 9999 });
  });

  it('refuses every impossible day (law), and accepts every real one', () => {
    fc.assert(fc.property(impossibleDayArb, (text) => calendarProblem(text) !== undefined));
    fc.assert(fc.property(calendarDayArb, ({ text }) => calendarProblem(text) === undefined));
  });

  it('agrees with parseDateSpan on days (law)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          impossibleDayArb,
          calendarDayArb.map(({ text }) => text),
        ),
        (text) => (calendarProblem(text) === undefined) === E.isRight(parseDateSpan(text, 'dateonly', '+00:00')),
      ),
    );
  });
});

describe('instantProblem', () => {
  it('returns undefined for instants in the years 1000 to 9999, a reason otherwise', () => {
    assert.equal(instantProblem(new Date('1000-01-01T00:00:00Z')), undefined);
    assert.equal(instantProblem(new Date('0001-01-01T00:00:00Z')), 'must be a date from year 1000 to 9999');
    assert.equal(instantProblem(new Date('9999-12-31T23:59:59.999Z')), undefined);
    assert.equal(instantProblem(new Date(8.64e15)), 'must be a date from year 1000 to 9999');
    assert.equal(instantProblem(new Date('9999-12-31T23:00:00-05:00')), 'must be a date from year 1000 to 9999');
    assert.equal(instantProblem(new Date('0000-06-01T00:00:00Z')), 'must be a date from year 1000 to 9999');
    assert.equal(instantProblem(new Date('nope')), 'must be an ISO 8601 date');
  });
});
