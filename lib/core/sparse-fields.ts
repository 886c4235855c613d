/**
 * parseFields: the sparse fieldset a request asks for (`fields=id,name,category.name`), checked against the field
 * policy and the request's includes; pickFields applies it to a serialized record.
 */
import * as E from 'fp-ts/lib/Either.js';
import type { AttributeSource, ErrorCode, FailItem, FieldPolicy, FieldTree } from '../types.js';
import { allowedColumn } from './field-policy.js';
import { didYouMean } from './nearest.js';
import { isRecord, listText } from './query-params.js';
import { MAX_RELATION_DEPTH, type RelationModel } from './relation-paths.js';

export type { FieldTree } from '../types.js';

/** A model as the fieldset reads it: its attributes, and its associations to walk. */
export type FieldModel = AttributeSource & { readonly associations?: RelationModel['associations'] };

/**
 * The fieldset `fields` names, or undefined when the request has none. Each item is a visible attribute of the
 * resource's model (by attribute or column name, as sort reads them), or a dot path through associations to one of the
 * associated model's visible attributes (or to an association, kept whole); every association a path walks must be in
 * `include`. Names are resolved to attribute and association names, repeats collapse, empty items are skipped. A hidden
 * name fails as an unknown one does (`columnNotFound`, with the nearest visible name), a path whose association is
 * not included with `invalidValue`; an empty list or a value that is not text with `invalidValue`. Every failure is
 * on the field `fields`, and every one is collected.
 * @example parseFields(Product, 'id,name,category.name', policy, ['category'])
 *   // right({ id: true, name: true, category: { name: true } })
 * @example parseFields(Product, 'id,secret', policy, []) // left([{ field: 'fields', error: 'columnNotFound', … }])
 */
export function parseFields(
  model: FieldModel,
  raw: unknown,
  policy: FieldPolicy,
  include: readonly string[],
): E.Either<FailItem<ErrorCode>[], FieldTree | undefined> {
  if (raw === undefined) return E.right(undefined);
  const text = listText(raw);
  const items = (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (text === undefined || items.length === 0)
    return E.left([
      { field: 'fields', error: 'invalidValue', message: 'fields must be a comma-separated list of field names' },
    ]);
  const failures: FailItem<ErrorCode>[] = [];
  const root: Node = new Map();
  for (const item of items) {
    const keys = resolveItem(model, item, policy, include);
    if (E.isLeft(keys)) failures.push(keys.left);
    else insert(root, keys.right);
  }
  return failures.length > 0 ? E.left(failures) : E.right(toTree(root));
}

/**
 * A record with only the keys of `fields`, in its order; an included record (or each of a list) keeps the keys of its
 * own tree, and a null one stays null. A key the record does not have is left out.
 * @example pickFields({ id: 1, name: 'Kite', price: 3, category: { id: 2, name: 'Toys' } }, { name: true, category: {
 *   name: true } })
 *   // { name: 'Kite', category: { name: 'Toys' } }
 */
export function pickFields(record: Readonly<Record<string, unknown>>, fields: FieldTree): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    if (!Object.hasOwn(record, key)) continue;
    const keep = fields[key]!;
    const value = record[key];
    const each = (item: unknown) => (keep !== true && isRecord(item) ? pickFields(item, keep) : item);
    Object.defineProperty(picked, key, {
      value: Array.isArray(value) && keep !== true ? value.map(each) : each(value),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return picked;
}

/**
 * The attributes of the resource's own model a fieldset keeps, in its order (included associations are not attributes).
 * @example ownFields(Product, { id: true, category: { name: true } }) // ['id']
 */
export function ownFields(model: FieldModel, fields: FieldTree): string[] {
  const attributes = model.getAttributes();
  return Object.keys(fields).filter((key) => fields[key] === true && Object.hasOwn(attributes, key));
}

type Node = Map<string, true | Node>;

/** The keys one item names (attribute and association names), or its failure. */
function resolveItem(
  model: FieldModel,
  item: string,
  policy: FieldPolicy,
  include: readonly string[],
): E.Either<FailItem<ErrorCode>, string[]> {
  const steps = item.split('.');
  let source: FieldModel = model;
  let visible = policy.visible;
  let path = '';
  const keys: string[] = [];
  for (const [index, step] of steps.entries()) {
    const last = index === steps.length - 1;
    const column = last ? allowedColumn(source, visible, step) : undefined;
    if (column !== undefined) return E.right([...keys, column.attribute]);
    const next = path === '' ? step : `${path}.${step}`;
    const association = Object.hasOwn(source.associations ?? {}, step) ? source.associations![step] : undefined;
    const relation =
      policy.relations !== undefined && Object.hasOwn(policy.relations, next) ? policy.relations[next] : undefined;
    if (association === undefined || relation === undefined || index >= MAX_RELATION_DEPTH)
      return E.left(unknownField(item, step, source, visible, path, policy));
    if (!include.includes(next))
      return E.left({
        field: 'fields',
        error: 'invalidValue',
        message: `fields names ${JSON.stringify(item)}, which needs include=${next}`,
      });
    keys.push(step);
    if (last) return E.right(keys);
    source = association.target;
    visible = relation.visible;
    path = next;
  }
  return E.left(unknownField(item, '', source, visible, path, policy));
}

/** The failure for a name that is no visible field where the path reached, with the nearest one there. */
function unknownField(
  item: string,
  step: string,
  source: FieldModel,
  visible: ReadonlySet<string>,
  path: string,
  policy: FieldPolicy,
): FailItem<ErrorCode> {
  const prefix = path === '' ? '' : `${path}.`;
  const associations = Object.keys(source.associations ?? {}).filter(
    (name) => policy.relations !== undefined && Object.hasOwn(policy.relations, `${prefix}${name}`),
  );
  const candidates = [...visible, ...associations];
  const where = path === '' ? 'this resource' : JSON.stringify(path);
  return {
    field: 'fields',
    error: 'columnNotFound',
    message:
      `fields names ${JSON.stringify(item)}, which is not a field of ${where}` +
      didYouMean(step, candidates).replace(/'([^']*)'\?$/, (_, name: string) => `'${prefix}${name}'?`),
  };
}

/** Adds one item's keys: a whole key wins over any of its parts. */
function insert(node: Node, keys: readonly string[]): void {
  const [key, ...rest] = keys;
  if (key === undefined) return;
  const existing = node.get(key);
  if (existing === true) return;
  if (rest.length === 0) {
    node.set(key, true);
    return;
  }
  const child: Node = existing ?? new Map<string, true | Node>();
  node.set(key, child);
  insert(child, rest);
}

function toTree(node: Node): FieldTree {
  return Object.fromEntries([...node].map(([key, value]) => [key, value === true ? true : toTree(value)]));
}
