/**
 * The public executor: a search's page and count, and options' rows, through Sequelize's public
 * API only (`findAll`, `count`, `sequelize.query` with `type: SELECT`), so every option those
 * honour (transaction, useMaster, logging, benchmark, hooks, replacements) holds as documented.
 * What a model falls back to when the fast executor's probe fails; the benchmark prints its figures.
 */
import { QueryTypes, Sequelize, type FindOptions, type Model, type ModelStatic } from 'sequelize';
import { inOneState } from './consistent.js';
import type { Capture, Executor, PreparedSelect, RawShape } from './executor.js';

/**
 * The page as instances of the shape's attributes only, each row its instance's values (what its
 * `toJSON` would give: the shape has no getters).
 */
async function page(
  model: ModelStatic<Model>,
  query: FindOptions,
  shape: RawShape,
  captures: readonly Capture[],
): Promise<Record<string, unknown>[]> {
  const attributes = [...shape.attributes, ...captures.map(({ sql, as }) => [Sequelize.literal(sql), as] as const)];
  const records = await model.findAll({ ...query, attributes: attributes as FindOptions['attributes'] });
  return records.map((record) => record.get({ plain: true }) as Record<string, unknown>);
}

function prepared(
  model: ModelStatic<Model>,
  query: FindOptions,
  shape: RawShape,
  captures: readonly Capture[],
): PreparedSelect {
  return {
    path: 'public',
    reusable: false,
    page: () => page(model, query, shape, captures),
    // count leaves out the page and the order itself.
    count: () => model.count(query),
    // One state for both (issue 21): in one transaction (or SQLite's unchanged data version), one after the other.
    pageAndCount: () =>
      inOneState(model.sequelize!, query.useMaster === true, query.transaction, async (placement) => {
        const within = { ...query, ...placement };
        const rows = await page(model, within, shape, captures);
        return [rows, await model.count(within)];
      }),
    again: () => prepared(model, query, shape, captures),
  };
}

/** The public executor. */
export const publicExecutor: Executor = {
  name: 'public',
  select: (model, query, shape, _driver, captures = []) => prepared(model, query, shape, captures),
  // Its selects are prepared by Sequelize on every request: none is kept.
  queriesAsPlanned: () => false,
  // With raw: true findAll gives plain rows, which its typings cannot say.
  rows: async (model, query) => (await model.findAll({ ...query, raw: true })) as object[] as Record<string, unknown>[],
  sql: (sequelize, sql) => sequelize.query<Record<string, unknown>>(sql, { type: QueryTypes.SELECT, raw: true }),
  // No public API gives the SQL of a find: the count is exact.
  estimate: () => Promise.resolve(undefined),
};
