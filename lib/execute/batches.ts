/** batchReader: a query's rows read batch by batch, for streaming exports. */
import { Op, type FindOptions, type Model, type ModelStatic } from 'sequelize';

/**
 * Reads the query's rows batch by batch as raw nested rows: by primary key (keyset) when the
 * query, as the hook left it, orders by the primary key ascending alone; otherwise by offset.
 * @example for await (const rows of batchReader(Product, query, 1000)) write(rows);
 */
export async function* batchReader(model: ModelStatic<Model>, query: FindOptions, size: number): AsyncGenerator<Record<string, unknown>[], undefined> {
  const order = query.order as unknown;
  const only = Array.isArray(order) && order.length === 1 ? (order[0] as unknown) : undefined;
  const keyset = Array.isArray(only) && only[0] === model.primaryKeyAttribute && /^ASC\b/.test(String(only[1]));
  let last: unknown = undefined;
  for (let offset = 0; ; offset += size) {
    const after = keyset && last !== undefined ? { [model.primaryKeyAttribute]: { [Op.gt]: last } } : undefined;
    const where = after ? { [Op.and]: [query.where ?? {}, after] } : query.where;
    const rows = (await model.findAll({ ...query, where, limit: size, ...(!keyset && { offset }), raw: true, nest: true })) as unknown as Record<string, unknown>[];
    if (rows.length === 0) return undefined;
    last = rows.at(-1)![model.primaryKeyAttribute];
    yield rows;
    if (rows.length < size) return undefined;
  }
}
