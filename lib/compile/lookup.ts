/** Compiles a record lookup (lookupFor's plan) into Sequelize find options. */
import { Op, type FindOptions, type Transaction } from 'sequelize';
import { NOT_NULL, type Lookup } from '../core/record-plan.js';

/**
 * Find options for a lookup: its where clause with the NOT_NULL marker as `{ [Op.ne]: null }`, and
 * its paranoid flag. Inside a transaction the row is read in it and locked for the write to come.
 * @example compileLookup({ where: { id: '7f…', deletedAt: NOT_NULL }, paranoid: false })
 *   // { where: { id: '7f…', deletedAt: { [Op.ne]: null } }, paranoid: false }
 */
export function compileLookup(lookup: Lookup, transaction?: Transaction): FindOptions {
  const where = Object.fromEntries(
    Object.entries(lookup.where).map(([attribute, value]) => [
      attribute,
      value === NOT_NULL ? { [Op.ne]: null } : value,
    ]),
  );
  return { where, paranoid: lookup.paranoid, ...(transaction && { transaction, lock: true }) };
}
