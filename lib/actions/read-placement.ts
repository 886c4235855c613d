/** Where a read action's reads run, as its plugins' `readFrom` stage asks (readYourWrites). */
import type { Sequelize } from 'sequelize';
import { whereVisible, type Placement } from '../execute/consistent.js';
import type { ReadRequirement } from '../types.js';

/**
 * Runs a read action's reads (`work`, given the find options to add to each of its queries) where
 * `requirement` says: as usual (`{}`) when there is none, on the writer (`{ useMaster: true }`) for
 * `primary`, and for `visible` in a reader's transaction that sees that PostgreSQL transaction, else
 * on the writer (`whereVisible`).
 * @example const found = await placedRead(sequelize, needs, (placement) => Note.findOne({ where, ...placement }));
 */
export function placedRead<T>(
  sequelize: Sequelize,
  requirement: ReadRequirement | undefined,
  work: (placement: Placement) => Promise<T>,
): Promise<T> {
  if (requirement === undefined) return work({});
  if (requirement.visible === undefined || requirement.primary === true) return work({ useMaster: true });
  return whereVisible(sequelize, requirement.visible, work);
}
