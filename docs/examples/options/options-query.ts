/**
 * buildOptionsQuery on its own (docs/actions/options.md): the options query as a value, or the
 * reason there is none, for code that lists options without HTTP (a job, a GraphQL resolver).
 */
import assert from 'node:assert/strict';
import * as E from 'fp-ts/lib/Either.js';
import type { OptionItem } from 'koa-fast-crud';
import { buildOptionsQuery, formatOptions, undeclaredValueColumn, type OptionsError } from 'koa-fast-crud/core';
import { Customer } from './customers.js';

// #region plan
// Right: the find options to run.
assert.deepEqual(
  buildOptionsQuery(Customer, 'name', undefined),
  E.right({
    attributes: [['id', 'value'], ['name', 'label']],
    where: { deletedAt: null },
    order: [['name', 'ASC']],
    raw: true,
  }),
);
// Left: why there is no query, naming the field.
assert.deepEqual(
  buildOptionsQuery(Customer, undefined, 'id'),
  E.left({ _tag: 'required', field: 'label' }),
);
assert.deepEqual(
  buildOptionsQuery(Customer, 'name; DROP TABLE x', 'id'),
  E.left({ _tag: 'columnNotFound', field: 'name; DROP TABLE x' }),
);
// Given a field policy's visible attributes, hidden ones are neither label nor value.
const visible = new Set(['id', 'name', 'deletedAt']);
assert.deepEqual(
  buildOptionsQuery(Customer, 'name', 'email', undefined, visible),
  E.left({ _tag: 'columnNotFound', field: 'email' }),
);
// #endregion plan

// #region run
type Listed = E.Either<OptionsError, OptionItem[]>;

/** A model's options without HTTP; a value column the model does not declare is refused. */
export async function listOptions(label: string, value?: string): Promise<Listed> {
  const planned = buildOptionsQuery(Customer, label, value);
  if (E.isLeft(planned)) return planned;
  const undeclared = undeclaredValueColumn(Customer, value);
  if (undeclared !== undefined) return E.left({ _tag: 'columnNotFound', field: undeclared });
  const rows = await Customer.findAll(planned.right);
  return E.right(formatOptions(rows as unknown as Record<string, unknown>[]));
}
// #endregion run
