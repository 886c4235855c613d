/** Date filter values as concrete bounds: a year, month or day covers all of it, in the database's time zone. */
import * as E from 'fp-ts/lib/Either.js';
import type { DateSpan, Operator } from '../types.js';

/** The kinds of column a date value is read for: `DATE` (instants) and `DATEONLY` (days). */
export type DateKind = 'date' | 'dateonly';

const CALENDAR = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:?\d{2})?$/;
/**
 * The texts a date filter value may be, as patterns (JSON Schema's `pattern`): a calendar bound
 * (`2026`, `2026-01`, `2026-01-31`) on DATE and DATEONLY columns, and an instant on DATE ones.
 * @example new RegExp(DATE_PATTERNS.calendar).test('2026-01') // true
 */
export const DATE_PATTERNS = Object.freeze({ calendar: CALENDAR.source, instant: INSTANT.source });
const OFFSET = /^([+-])(\d{2}):?(\d{2})$/;
const DAY_MS = 86_400_000;

/**
 * What a filter value covers, both ends included. `2024`, `2024-03` and `2024-03-31` cover that whole
 * year, month or day: on a DATE column from its first instant (00:00:00.000) to its last (23:59:59.999)
 * in `zone`; on a DATEONLY column from its first day to its last. A date with a time is one instant,
 * read in `zone` unless it names its own offset. Dates that do not exist (`2024-02-30`) are refused.
 * @example parseDateSpan('2024-12-31', 'date', '+00:00')
 *   // right({ from: 2024-12-31T00:00:00.000Z, to: 2024-12-31T23:59:59.999Z })
 * @example parseDateSpan('2024-03', 'dateonly', '+00:00') // right({ from: '2024-03-01', to: '2024-03-31' })
 */
export function parseDateSpan(text: string, kind: DateKind, zone: string): E.Either<string, DateSpan> {
  const calendar = CALENDAR.exec(text);
  if (calendar) {
    const year = Number(calendar[1]);
    const month = calendar[2] === undefined ? undefined : Number(calendar[2]);
    const day = calendar[3] === undefined ? undefined : Number(calendar[3]);
    const wrong = calendarError(year, month ?? 1, day ?? 1);
    if (wrong !== undefined) return E.left(wrong);
    const first = dayNumber(year, month ?? 1, day ?? 1);
    const last =
      day !== undefined
        ? first
        : month !== undefined
          ? dayNumber(year, month, daysIn(year, month))
          : dayNumber(year, 12, 31);
    if (kind === 'dateonly') return E.right({ from: dayText(first), to: dayText(last) });
    return E.right({
      from: new Date(wallToUtc(first * DAY_MS, zone)),
      to: new Date(wallToUtc((last + 1) * DAY_MS, zone) - 1),
    });
  }
  const instant = kind === 'date' ? INSTANT.exec(text) : null;
  if (!instant)
    return E.left(kind === 'date' ? 'must be an ISO 8601 date' : 'must be a date (YYYY-MM-DD, YYYY-MM or YYYY)');
  const [year, month, day, hour, minute, second] = instant.slice(1, 7).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wrong =
    calendarError(year, month, day) ??
    (hour > 23 || minute > 59 || second > 59 ? `must be a time that exists: ${text}` : undefined);
  if (wrong !== undefined) return E.left(wrong);
  const wall =
    dayNumber(year, month, day) * DAY_MS +
    ((hour * 60 + minute) * 60 + second) * 1000 +
    Number((instant[7] ?? '0').padEnd(3, '0').slice(0, 3));
  const suffix = instant[8];
  const ms =
    suffix === undefined ? wallToUtc(wall, zone) : wall - fixedOffset(suffix === 'Z' ? '+00:00' : suffix) * 60_000;
  return E.right({ from: new Date(ms), to: new Date(ms) });
}

/**
 * The values a date condition compares with: `gt`, `lte` and `gtn` the span's end; `gte`, `lt` and
 * `ltn` its start; `btw` the first span's start and the last one's end; `eq`, `neq`, `in` and `nin`
 * the spans themselves, a span of one instant (or one DATEONLY day) as that plain value.
 * @example dateBoundValues('lte', [{ from: '2024-03-01', to: '2024-03-31' }]) // ['2024-03-31']
 */
export function dateBoundValues(op: Operator, spans: readonly DateSpan[]): readonly unknown[] {
  const [first, second] = spans;
  switch (op) {
    case 'gt':
    case 'lte':
    case 'gtn':
      return first ? [first.to] : [];
    case 'gte':
    case 'lt':
    case 'ltn':
      return first ? [first.from] : [];
    case 'btw':
      return first && second ? [first.from, second.to] : [];
    default:
      return spans.map((span) => (sameEnds(span) ? span.from : span));
  }
}

/**
 * True for a span that a compiled `eq`, `neq`, `in` or `nin` must read as a range.
 * @example isDateSpan({ from: '2024-03-01', to: '2024-03-31' }) // true
 */
export function isDateSpan(value: unknown): value is DateSpan {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && 'from' in value && 'to' in value;
}

/** One formatter per named zone: building an Intl.DateTimeFormat costs far more than using one. */
const WALL_CLOCKS = new Map<string, Intl.DateTimeFormat>();

function wallClock(zone: string): Intl.DateTimeFormat {
  const known = WALL_CLOCKS.get(zone);
  if (known) return known;
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  WALL_CLOCKS.set(zone, format);
  return format;
}

/**
 * The offset in minutes east of UTC that `zone` has at an instant: a fixed offset (`+02:00`, `-0530`,
 * `Z`, `UTC`) or an IANA name (`Europe/Paris`, daylight saving included). Unknown names count as UTC.
 * @example zoneOffset('+02:00', Date.UTC(2024, 0, 1)) // 120
 */
export function zoneOffset(zone: string, utcMs: number): number {
  if (zone === '' || /^(Z|UTC|GMT)$/i.test(zone)) return 0;
  if (OFFSET.test(zone)) return fixedOffset(zone);
  try {
    const parts = wallClock(zone).formatToParts(new Date(utcMs));
    const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
    return Math.round((wall - (utcMs - (((utcMs % 1000) + 1000) % 1000))) / 60_000);
  } catch {
    return 0;
  }
}

/**
 * The years a date or datetime value may have: 1000 to 9999, MariaDB's supported range, which every
 * dialect stores and reads back as written. Past 9999 SQLite stores NULL (JavaScript's dates reach
 * year 275760); before year 100 a datetime read back from SQLite or MariaDB comes back as 20xx.
 * @example DATE_YEARS.min // 1000
 */
export const DATE_YEARS = Object.freeze({ min: 1000, max: 9999 });

const CALENDAR_PREFIX = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/;

/**
 * Why a date text (`YYYY-MM-DD`, with an optional time) is not a real calendar value, or undefined
 * when it is one: a day its month lacks (`2024-02-30`), a month 13, an hour 24 or a minute 60, or a
 * year outside DATE_YEARS. The shape of the text is the caller's check.
 * @example calendarProblem('2024-02-30') // 'must be a date that exists: 2024-02 has 29 days'
 * @example calendarProblem('2024-02-29T12:00:00Z') // undefined
 */
export function calendarProblem(text: string): string | undefined {
  const match = CALENDAR_PREFIX.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < DATE_YEARS.min || year > DATE_YEARS.max) return yearProblem();
  return (
    calendarError(year, month, day) ??
    (hour > 23 || minute > 59 || second > 59 ? `must be a time that exists: ${text}` : undefined)
  );
}

/**
 * Why an instant cannot be stored as a date, or undefined when it can: not a valid time, or a UTC
 * year outside DATE_YEARS (epoch milliseconds, or an offset that carries 9999-12-31 into year 10000).
 * @example instantProblem(new Date(8.64e15)) // 'must be a date from year 1000 to 9999'
 */
export function instantProblem(date: Date): string | undefined {
  if (Number.isNaN(date.getTime())) return 'must be an ISO 8601 date';
  const year = date.getUTCFullYear();
  return year < DATE_YEARS.min || year > DATE_YEARS.max ? yearProblem() : undefined;
}

function yearProblem(): string {
  return `must be a date from year ${DATE_YEARS.min} to ${DATE_YEARS.max}`;
}

/** The instant whose wall-clock time in `zone` is `wallMs` (both counted as if UTC). */
function wallToUtc(wallMs: number, zone: string): number {
  const guess = wallMs - zoneOffset(zone, wallMs) * 60_000;
  return wallMs - zoneOffset(zone, guess) * 60_000;
}

function fixedOffset(text: string): number {
  const [, sign, hours, minutes] = OFFSET.exec(text) ?? [];
  return (sign === '-' ? -1 : 1) * (Number(hours ?? 0) * 60 + Number(minutes ?? 0));
}

function calendarError(year: number, month: number, day: number): string | undefined {
  if (month < 1 || month > 12) return `must be a date that exists: there is no month ${String(month).padStart(2, '0')}`;
  const days = daysIn(year, month);
  return day < 1 || day > days
    ? `must be a date that exists: ${year}-${String(month).padStart(2, '0')} has ${days} days`
    : undefined;
}

function daysIn(year: number, month: number): number {
  return month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;
}

/** Days since 1970-01-01 of a calendar date, for any four-digit year. */
function dayNumber(year: number, month: number, day: number): number {
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return Math.round(date.getTime() / DAY_MS);
}

function dayText(days: number): string {
  const date = new Date(days * DAY_MS);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}`;
}

function sameEnds(span: DateSpan): boolean {
  return span.from instanceof Date && span.to instanceof Date
    ? span.from.getTime() === span.to.getTime()
    : span.from === span.to;
}
