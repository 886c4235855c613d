/**
 * The type parsers the driver path hands node-postgres with each query (its `types` option): the values Sequelize's
 * own parsers give, without the detour Sequelize's take on every value of a type it parses itself. For such a type,
 * Sequelize registers `(value) => dataType.parse(value)`, where `dataType` is a `classToInvokable` Proxy, and a
 * property read through a Proxy cost about 30 ns per value here: 3.6 µs on a 40-row search page, a quarter of a
 * millisecond on an options list of 9,000 rows.
 *
 * For a builtin type whose parser Sequelize registered from `DataTypes.postgres` (`int4`, `numeric`, `bool`, `date`),
 * the stand-in calls that type's `parse` itself, read once per query rather than once per value. It is trusted only
 * once it has given the same value as Sequelize's parser for `CHECKED_VALUES` values; until then Sequelize's parser
 * answers each value and the stand-in is compared with it, and one difference (or a throw) keeps the type on
 * Sequelize's parser for good. A new parser from Sequelize for the type (`refreshTypeParser`) or a new `parse` on the
 * type starts again. Any other type, and any binary column, gets Sequelize's parser as it is.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Sequelize } from 'sequelize';
import { privateSequelize, type PgDataType, type PgTypes } from './private-sequelize.js';

type Parser = (value: string) => unknown;

/** What node-postgres asks a query's `types` for: the parser of each column of a result. */
export interface QueryTypes {
  getTypeParser(oid: number, format?: string): Parser;
}

/** The values a stand-in must agree with Sequelize's parser on before it parses alone. */
export const CHECKED_VALUES = 64;

/** What one oid is parsed with: Sequelize's parser, and the stand-in for it when its type has one. */
interface Entry {
  /** Sequelize's parser when the entry was made: another one makes a new entry. */
  readonly theirs: Parser;
  readonly stand?: StandIn;
}

interface StandIn {
  readonly type: PgDataType;
  /** The type's `parse` when the entry was made: another one makes a new entry. */
  readonly parse: Parser;
  /** Values still to compare; 0 once trusted, -1 once refused. */
  left: number;
  readonly direct: Parser;
  readonly checking: Parser;
}

/**
 * The `types` for the driver path's queries on a PostgreSQL instance, or undefined when Sequelize's connection
 * manager does not show its parsers (`privateSequelize.pgTypes`): the connections' own parsers then apply.
 * @example connection.query({ text: sql, types: queryTypes(sequelize) }, callback)
 */
export function queryTypes(sequelize: Sequelize): QueryTypes | undefined {
  const pg = privateSequelize.pgTypes(sequelize);
  return pg === undefined ? undefined : standInTypes(pg);
}

function standInTypes(pg: PgTypes): QueryTypes {
  const names = new Map(Object.entries(pg.builtins).map(([name, oid]) => [oid, name.toLowerCase()]));
  const entries = new Map<number, Entry>();
  return {
    getTypeParser(oid, format = 'text') {
      const theirs = pg.parserOf(oid, format);
      if (format !== 'text') return theirs;
      let entry = entries.get(oid);
      if (
        entry === undefined ||
        entry.theirs !== theirs ||
        (entry.stand && entry.stand.parse !== entry.stand.type.parse)
      )
        entries.set(oid, (entry = { theirs, stand: standIn(pg.dataTypes(), names.get(oid), theirs) }));
      const { stand } = entry;
      if (stand === undefined || stand.left < 0) return theirs;
      return stand.left === 0 ? stand.direct : stand.checking;
    },
  };
}

/** The stand-in for Sequelize's parser of the builtin type `name`, when a type of `DataTypes.postgres` parses it. */
function standIn(types: readonly PgDataType[], name: string | undefined, theirs: Parser): StandIn | undefined {
  if (name === undefined) return undefined;
  // The last one, as `refreshTypeParser` sets each type's parser over the ones before it.
  const type = types.findLast(
    (candidate) =>
      Object.hasOwn(candidate, 'parse') &&
      Array.isArray(candidate.types?.postgres) &&
      (candidate.types.postgres as unknown[]).includes(name),
  );
  const parse = type?.parse;
  if (type === undefined || typeof parse !== 'function') return undefined;
  const direct: Parser = (value) => parse.call(type, value);
  const stand: StandIn = {
    type,
    parse,
    left: CHECKED_VALUES,
    direct,
    checking: (value) => {
      const expected = theirs(value);
      if (stand.left > 0) stand.left = agrees(direct, value, expected) ? stand.left - 1 : -1;
      return expected;
    },
  };
  return stand;
}

/** True when `parse` gives `expected` for `value` (the same primitive, or an equal object such as a Date). */
function agrees(parse: Parser, value: string, expected: unknown): boolean {
  try {
    const got = parse(value);
    return Object.is(got, expected) || (typeof got === 'object' && got !== null && isDeepStrictEqual(got, expected));
  } catch {
    return false;
  }
}
