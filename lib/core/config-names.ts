/** configNameProblems: configuration keys that name a model's columns, checked against the model at registration. */
import type { AttributeSource, CrudMethod, FastCrudConfig } from '../types.js';
import { findColumn, knownNames } from './columns.js';
import { DEFAULT_CONFIG } from './config.js';
import { nearest } from './nearest.js';

/**
 * A problem for each configured name that would start silently and fail requests later:
 * `options.default_value` or an `options.value_columns` entry naming a hidden attribute, or a near
 * miss of an attribute (when options is registered), and a `soft_delete.deleted_at_field` that is a
 * near miss of one. A name that is no near miss stays allowed: options may read a column the model
 * does not declare (spec options rule 3), and a model without the deleted-at column has no soft delete.
 * A default left as it is names no one's typo, so it is not held to the near-miss rule.
 * @example configNameProblems(User, new Set(['password']), config, ['options']) // with default_value 'handel'
 *   // ["options.default_value names 'handel', which is not an attribute or column of User; did you mean 'handle'?"]
 */
export function configNameProblems(
  model: AttributeSource & { readonly name: string },
  hidden: ReadonlySet<string>,
  config: FastCrudConfig,
  methods: readonly CrudMethod[],
): string[] {
  const { default_value: defaultValue, value_columns: valueColumns } = config.options;
  const options = methods.includes('options')
    ? [
        ...nameProblems(model, hidden, 'options.default_value', defaultValue, DEFAULT_CONFIG.options.default_value),
        ...(valueColumns ?? []).flatMap((name) => nameProblems(model, hidden, 'options.value_columns', name)),
      ]
    : [];
  const { deleted_at_field: deletedAt, deleted_by_field: deletedBy } = config.soft_delete;
  const by = findColumn(model, deletedBy);
  const others = knownNames(model).filter((name) => name !== by?.attribute && name !== by?.column);
  const softDelete =
    findColumn(model, deletedAt) === undefined && deletedAt !== DEFAULT_CONFIG.soft_delete.deleted_at_field
      ? nearMiss(model, 'soft_delete.deleted_at_field', deletedAt, others)
      : [];
  return [...options, ...softDelete];
}

function nameProblems(
  model: AttributeSource & { readonly name: string },
  hidden: ReadonlySet<string>,
  key: string,
  name: string,
  unchecked?: string,
): string[] {
  const found = findColumn(model, name);
  if (found !== undefined) {
    if (!hidden.has(found.attribute)) return [];
    const why = 'options would answer it as a value; name a visible column';
    return [`${key} names '${name}', a hidden attribute of ${model.name}: ${why}`];
  }
  return name === unchecked ? [] : nearMiss(model, key, name, knownNames(model));
}

function nearMiss(model: { readonly name: string }, key: string, name: string, names: readonly string[]): string[] {
  const guess = nearest(name, names);
  if (guess === undefined) return [];
  return [`${key} names '${name}', which is not an attribute or column of ${model.name}; did you mean '${guess}'?`];
}
