/** batchReader: a query's rows read batch by batch, for streaming exports. */
import { Op, type FindOptions, type Model, type ModelStatic } from 'sequelize';

/**
 * Reads the query's records batch by batch, as model instances (so getters and each dialect's
 * type parsing apply, as in the JSON actions): by primary key (keyset) when the query, as the hook
 * left it, orders by the primary key ascending alone; otherwise by offset.
 * @example for await (const records of batchReader(Product, query, 1000)) write(records);
 */
export async function* batchReader<M extends Model>(model: ModelStatic<M>, query: FindOptions, size: number): AsyncGenerator<M[], undefined> {
  const order = query.order as unknown;
  const only = Array.isArray(order) && order.length === 1 ? (order[0] as unknown) : undefined;
  const keyset = Array.isArray(only) && only[0] === model.primaryKeyAttribute && /^ASC\b/.test(String(only[1]));
  let last: unknown = undefined;
  for (let offset = 0; ; offset += size) {
    const after = keyset && last !== undefined ? { [model.primaryKeyAttribute]: { [Op.gt]: last } } : undefined;
    const where = after ? { [Op.and]: [query.where ?? {}, after] } : query.where;
    const records = await model.findAll({ ...query, where, limit: size, ...(!keyset && { offset }), raw: false });
    if (records.length === 0) return undefined;
    last = (records.at(-1)!.dataValues as Record<string, unknown>)[model.primaryKeyAttribute];
    yield records;
    if (records.length < size) return undefined;
  }
}
