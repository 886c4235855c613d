/** Arbitrary filter values: blanks, padding, calendar days and months, time zones. */
import fc from 'fast-check';

/** Whitespace a search form may send, the empty string included. */
export const blankArb = fc
  .array(fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u3000'), { maxLength: 4 })
  .map((chars) => chars.join(''));

/** Padding that trims away: blanks before and after. */
export const paddingArb = fc.tuple(blankArb, blankArb);

/** A day that exists, from 1900 to 2100. */
export const calendarDayArb = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => ({
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    text: d.toISOString().slice(0, 10),
  }));

/** A month from 1900 to 2100, as `YYYY-MM`. */
export const calendarMonthArb = fc
  .record({ year: fc.integer({ min: 1900, max: 2100 }), month: fc.integer({ min: 1, max: 12 }) })
  .map(({ year, month }) => ({ year, month, text: `${year}-${String(month).padStart(2, '0')}` }));

/** A time zone as a Sequelize `timezone` option: fixed offsets and IANA names with daylight saving. */
export const zoneArb = fc.constantFrom(
  '+00:00',
  '+02:00',
  '-05:30',
  '+14:00',
  '-12:00',
  'Europe/Paris',
  'America/New_York',
  'Asia/Kolkata',
);

/** A day that does not exist: day 0, or one past the month's last. */
export const impossibleDayArb = fc.oneof(
  calendarMonthArb.map(({ text }) => `${text}-00`),
  calendarMonthArb.map(({ year, month, text }) => `${text}-${new Date(Date.UTC(year, month, 0)).getUTCDate() + 1}`),
  fc.integer({ min: 1900, max: 2100 }).map((year) => `${year}-13-01`),
);
