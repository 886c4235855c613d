/**
 * planBulkInsert: whether create many may write its records with one multi-row INSERT … RETURNING of its own and
 * answer the returned rows as they are (the statement path), or must go through Sequelize's `bulkCreate` and read the
 * records back as instances.
 */
import type { RowShape } from './row-shape.js';

/**
 * The dialects whose INSERT returns the inserted rows (`RETURNING *`), checked against `bulkCreate`'s replies, and the
 * first version of each that has it (SQLite 3.35 and PostgreSQL always, for the drivers Sequelize 6 ships with).
 */
const RETURNING_SINCE: Readonly<Record<string, readonly number[]>> = { postgres: [0], sqlite: [0], mariadb: [10, 5] };

/** What the planner knows of the model, as the shell read it. */
export interface InsertFacts {
  readonly dialect: string;
  /** The server's version as Sequelize read it when it connected (`options.databaseVersion`), if known. */
  readonly databaseVersion?: string | undefined;
  /** The row shape of a read of the model's records with create's serializer (`planRowShape`). */
  readonly shape: RowShape;
  /** The model's primary key attributes. */
  readonly primaryKey: readonly string[];
  /** The model's (or the instance's) `beforeBulkCreate` / `afterBulkCreate` hooks, which `bulkCreate` runs. */
  readonly bulkHooks: boolean;
  /** The model has a default scope, which a read back applies (it may hide a column or the record). */
  readonly defaultScope: boolean;
  /** The query generator has `escape`, and the model says which attributes are its timestamps. */
  readonly escapes: boolean;
}

/** How create many writes: the raw row shape of the statement path, or `instances` (`bulkCreate`) for `reason`. */
export type InsertPlan = Extract<RowShape, { path: 'raw' }> | { readonly path: 'instances'; readonly reason: string };

/**
 * How create many writes: the statement path (one INSERT … RETURNING of its own, the returned rows answered as a read
 * shows them: the raw shape's `attributes` in the model's order, `converted` as search converts raw rows), or
 * `instances` (`bulkCreate`), for `reason`.
 * @example planBulkInsert({ dialect: 'postgres', shape, primaryKey: ['id'], bulkHooks: false, defaultScope: false,
 *   escapes: true }) // { path: 'raw', attributes: ['id', 'name'], converted: [] }
 */
export function planBulkInsert(facts: InsertFacts): InsertPlan {
  const since = RETURNING_SINCE[facts.dialect];
  if (since === undefined)
    return { path: 'instances', reason: `the statement path is not checked on ${facts.dialect}` };
  if (!atLeast(facts.databaseVersion ?? '0', since))
    return { path: 'instances', reason: `${facts.dialect} ${facts.databaseVersion ?? '(unknown)'} has no RETURNING` };
  if (facts.shape.path !== 'raw') return { path: 'instances', reason: facts.shape.reason };
  if (facts.primaryKey.length !== 1) return { path: 'instances', reason: 'the primary key is not one column' };
  if (facts.bulkHooks) return { path: 'instances', reason: 'the model has bulk create hooks' };
  if (facts.defaultScope) return { path: 'instances', reason: 'the model has a default scope' };
  if (!facts.escapes) return { path: 'instances', reason: "the query generator's escape is missing" };
  return facts.shape;
}

/**
 * The order of returned rows that gives the request's order: by the primary key values the items carry (all of them,
 * distinct), else ascending by the generated key (an auto-increment key numbers a multi-row INSERT in order);
 * undefined when neither holds.
 * @example rowOrder([undefined, undefined], true) // 'ascending'
 * @example rowOrder(['b', 'a'], false) // 'given'
 */
export function rowOrder(keys: readonly unknown[], autoIncrement: boolean): 'given' | 'ascending' | undefined {
  const given = keys.every((key) => key !== undefined && key !== null);
  if (given && new Set(keys.map(String)).size === keys.length) return 'given';
  if (autoIncrement && keys.every((key) => key === undefined || key === null)) return 'ascending';
  return undefined;
}

/** True when a dotted version is at least `since` (numbers compared part by part; a missing part is 0). */
function atLeast(version: string, since: readonly number[]): boolean {
  const parts = version.split('.').map((part) => Number.parseInt(part, 10) || 0);
  for (const [index, wanted] of since.entries()) {
    const got = parts[index] ?? 0;
    if (got !== wanted) return got > wanted;
  }
  return true;
}
