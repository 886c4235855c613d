/**
 * planRowShape: whether search may read raw rows of only the visible attributes (the fast path), or needs model
 * instances.
 */
import type { AttributeSource } from '../types.js';
import { kindOf, type ValueKind } from './attribute-kinds.js';

/**
 * How search turns rows into reply records. `raw`: select `attributes` (the visible ones, in the
 * model's order) as plain rows and convert the `converted` ones as Sequelize would for an instance;
 * `instance`: build model instances and call the serializer, for the `reason` given.
 */
export type RowShape =
  | {
      readonly path: 'raw';
      readonly attributes: readonly string[];
      readonly converted: readonly { readonly attribute: string; readonly kind: ValueKind }[];
    }
  | { readonly path: 'instance'; readonly reason: string };

/** What the planner reads of a Sequelize model besides its attributes: the flags Sequelize keeps on the class. */
export interface ShapeModel extends AttributeSource {
  readonly options?: { readonly getterMethods?: Readonly<Record<string, unknown>> | undefined } | undefined;
  /**
   * Sequelize keeps the getters (attribute `get`s and `getterMethods`) on the prototype when the model is initialised.
   */
  readonly prototype?: { readonly _customGetters?: Readonly<Record<string, unknown>> | undefined } | undefined;
}

/** The kinds whose raw value differs from an instance's on a dialect, and so are converted. */
const CONVERTED: Readonly<Record<string, ReadonlySet<ValueKind>>> = {
  // SQLite returns dates as text and booleans as 0/1; Sequelize parses the one and sanitizes the other.
  sqlite: new Set(['date', 'boolean']),
  // MariaDB's driver returns a BOOLEAN (TINYINT(1)) as 0/1; dates are parsed by the connection already.
  mariadb: new Set(['boolean']),
  mysql: new Set(['boolean']),
  // pg parses every type in the driver (Sequelize registers its parsers there); booleans are booleans.
  postgres: new Set(),
};

/** Kinds read the same raw as through an instance, or converted as above; any other kind takes the instance path. */
export const RAW_KINDS: ReadonlySet<ValueKind> = new Set([
  'integer',
  'number',
  'boolean',
  'date',
  'dateonly',
  'uuid',
  'string',
  'enum',
]);

/**
 * The row shape of a model's search replies: raw when the serializer is the plain `toJSON` and the
 * model has no getters, VIRTUAL attributes, custom `toJSON`, or attribute of a kind raw rows may
 * not give exactly as an instance does (JSON, binary and other types; every kind on a dialect not listed).
 * @example planRowShape(Product, policy.visible, 'sqlite', 'toJSON', false)
 *   // { path: 'raw', attributes: ['id', 'name', 'price', 'created_at'], converted: [{ attribute: 'created_at', kind:
 *   // 'date' }] }
 */
export function planRowShape(
  model: ShapeModel,
  visible: ReadonlySet<string>,
  dialect: string,
  method: string,
  customToJSON: boolean,
): RowShape {
  if (method !== 'toJSON') return { path: 'instance', reason: `search.method is ${method}` };
  if (customToJSON) return { path: 'instance', reason: 'the model overrides toJSON' };
  const getters = { ...model.options?.getterMethods, ...model.prototype?._customGetters };
  const attributeGetters = Object.values(model.getAttributes()).some(
    (definition) => typeof (definition as { get?: unknown }).get === 'function',
  );
  if (Object.keys(getters).length > 0 || attributeGetters) return { path: 'instance', reason: 'the model has getters' };
  const converted = CONVERTED[dialect];
  if (converted === undefined) return { path: 'instance', reason: `raw rows are not checked on ${dialect}` };
  const attributes = Object.entries(model.getAttributes()).filter(([name]) => visible.has(name));
  const virtual = Object.entries(model.getAttributes()).find(
    ([, definition]) => (definition.type as { key?: string } | undefined)?.key === 'VIRTUAL',
  );
  if (virtual !== undefined) return { path: 'instance', reason: `${virtual[0]} is VIRTUAL` };
  const unread = attributes.find(([, definition]) => !RAW_KINDS.has(kindOf(definition)));
  if (unread !== undefined)
    return { path: 'instance', reason: `${unread[0]} is of a type raw rows may not give as an instance does` };
  return {
    path: 'raw',
    attributes: attributes.map(([name]) => name),
    converted: attributes.flatMap(([attribute, definition]) => {
      const kind = kindOf(definition);
      return converted.has(kind) ? [{ attribute, kind }] : [];
    }),
  };
}

/**
 * A raw shape narrowed to the attributes a sparse fieldset keeps (`fields=`), in the fieldset's order, so the select
 * names only those columns; the shape itself without a fieldset.
 * @example sparseShape({ path: 'raw', attributes: ['id', 'name', 'price'], converted: [] }, ['price', 'id'])
 *   // { path: 'raw', attributes: ['price', 'id'], converted: [] }
 */
export function sparseShape<S extends Extract<RowShape, { path: 'raw' }>>(
  shape: S,
  kept: readonly string[] | undefined,
): S {
  if (kept === undefined) return shape;
  const attributes = kept.filter((name) => shape.attributes.includes(name));
  return { ...shape, attributes, converted: shape.converted.filter(({ attribute }) => attributes.includes(attribute)) };
}
