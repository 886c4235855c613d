/** Foreign keys a write stores, checked against the row scopes of the rows they point at. */
import type { Model, ModelStatic, Transaction } from 'sequelize';
import { Op } from 'sequelize';
import { scopeWhere } from '../compile/row-scope.js';
import { clientErrorOf } from '../core/error-reply.js';
import type { RowScopes } from '../types.js';

/** An attribute of a model that holds a key of another model's rows. */
interface Reference {
  readonly attribute: string;
  readonly target: ModelStatic<Model>;
  readonly targetKey: string;
}

interface AssociationShape {
  readonly associationType: string;
  readonly source: ModelStatic<Model>;
  readonly target: ModelStatic<Model>;
  readonly foreignKey?: string;
  readonly targetKey?: string;
  readonly sourceKey?: string;
  readonly throughModel?: ModelStatic<Model>;
  readonly otherKey?: string;
}

/**
 * The attributes of `model` that point at rows of another model: the foreign key of each
 * belongs-to association, the two keys of a link table that a belongs-to-many association goes
 * through (whichever model declares it), and any attribute whose `references` names a model's table.
 * @example referencesOf(BookTag)
 *   // [{ attribute: 'bookId', target: Book, targetKey: 'id' }, { attribute: 'tagId', target: Tag, targetKey: 'id' }]
 */
export function referencesOf(model: ModelStatic<Model>): readonly Reference[] {
  const found = new Map<string, Reference>();
  const add = (attribute: string | undefined, target: ModelStatic<Model>, targetKey: string | undefined) => {
    if (attribute !== undefined && !found.has(attribute))
      found.set(attribute, { attribute, target, targetKey: targetKey ?? target.primaryKeyAttribute });
  };
  for (const association of Object.values(model.associations) as unknown as AssociationShape[]) {
    if (association.associationType === 'BelongsTo')
      add(association.foreignKey, association.target, association.targetKey);
  }
  const models = Object.values(model.sequelize!.models) as ModelStatic<Model>[];
  for (const other of models) {
    for (const association of Object.values(other.associations) as unknown as AssociationShape[]) {
      if (association.associationType !== 'BelongsToMany' || association.throughModel !== model) continue;
      add(association.foreignKey, association.source, association.sourceKey);
      add(association.otherKey, association.target, association.targetKey);
    }
  }
  for (const [attribute, definition] of Object.entries(model.getAttributes())) {
    const references = definition.references as { model?: unknown; key?: string } | string | undefined;
    const table = typeof references === 'string' ? references : references?.model;
    const target = models.find((candidate) => sameTable(candidate.getTableName(), table));
    if (target === undefined) continue;
    const key = typeof references === 'object' ? references.key : undefined;
    const targetKey = Object.entries(target.getAttributes()).find(
      ([name, column]) => (column.field ?? name) === key,
    )?.[0];
    add(attribute, target, targetKey);
  }
  return [...found.values()];
}

/** Whether two table names (a string, or `{ tableName, schema }` as Sequelize gives them) name the same table. */
function sameTable(a: unknown, b: unknown): boolean {
  const name = (table: unknown) =>
    typeof table === 'string' ? table : (table as { tableName?: string } | null | undefined)?.tableName;
  const other = name(b);
  return other !== undefined && name(a) === other;
}

/**
 * Throws a 409 `foreignKey` client error naming the first written foreign key whose row the
 * request may not reach: a row of a scoped model outside the request's row scopes is, for this
 * request, a row that is not there. Thrown inside the write's transaction, it rolls it back.
 * @example await checkReferences(Invoice, { customerId: 4 }, scopes, transaction);
 */
export async function checkReferences(
  model: ModelStatic<Model>,
  data: Readonly<Record<string, unknown>>,
  scopes: RowScopes,
  transaction: Transaction,
): Promise<void> {
  if (scopes.size === 0) return;
  for (const { attribute, target, targetKey } of referencesOf(model)) {
    const value = data[attribute];
    const scoped = scopeWhere(target, scopes);
    if (value === undefined || value === null || scoped === undefined) continue;
    const found = await target.count({
      where: { [Op.and]: [{ [targetKey]: value }, scoped] },
      transaction,
      paranoid: false,
    });
    if (found === 0) throw clientErrorOf('foreignKey', `No ${target.name} with this ${targetKey} was found`, attribute);
  }
}
