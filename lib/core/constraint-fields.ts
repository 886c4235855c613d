/**
 * Which fields a unique or foreign-key refusal names: the columns the driver reports, as the resource's visible
 * attributes.
 */

/**
 * What the error exit knows of a registered resource: each column of its model with the
 * attribute it belongs to (`serial_no` → `serialNo`, and each attribute to itself), and the
 * attributes its field policy shows.
 * @example { columns: new Map([['serial_no', 'serialNo'], ['serialNo', 'serialNo']]), visible: new Set(['serialNo']) }
 */
export interface ErrorFields {
  readonly columns: ReadonlyMap<string, string>;
  readonly visible: ReadonlySet<string>;
}

/**
 * The resource's fields for the columns a constraint names: each column as its attribute, when
 * every one maps to an attribute the field policy shows; else undefined, so the reply names no
 * field and does not confirm that a hidden value exists elsewhere. Without `fields` (no resource
 * behind the route) the columns are named as they are.
 * @example
 * const fields = { columns: new Map([['serial_no', 'serialNo']]), visible: new Set(['serialNo']) };
 * visibleFields(['serial_no'], fields) // ['serialNo']
 * @example visibleFields(['token'], { columns: new Map([['token', 'token']]), visible: new Set(['id']) }) // undefined
 */
export function visibleFields(
  columns: readonly string[],
  fields: ErrorFields | undefined,
): readonly string[] | undefined {
  if (fields === undefined) return columns;
  const attributes = columns.map((column) => fields.columns.get(column));
  const shown = (name: string | undefined): name is string => name !== undefined && fields.visible.has(name);
  return attributes.every(shown) ? attributes : undefined;
}

/**
 * The child columns of a foreign key a row breaks, read from PostgreSQL's detail
 * (`Key ("authorId")=(…) is not present in table "authors".`), quoted identifiers unquoted;
 * none for a row still referenced from another table (`… is still referenced from table …`),
 * whose columns are the referenced table's, nor for any other text.
 * @example foreignKeyColumns('Key ("authorId")=(5) is not present in table "authors".') // ['authorId']
 * @example foreignKeyColumns('Key (id)=(5) is still referenced from table "books".') // []
 */
export function foreignKeyColumns(detail: unknown): readonly string[] {
  if (typeof detail !== 'string' || !detail.startsWith('Key (')) return [];
  const columns = identifiers(detail, 'Key ('.length);
  return columns !== undefined && / is not present in table /.test(detail) ? columns : [];
}

/**
 * A comma-separated list of PostgreSQL identifiers starting at `at`, up to the `)=(` after it; undefined when
 * malformed.
 */
function identifiers(text: string, at: number): string[] | undefined {
  const names: string[] = [];
  let index = at;
  for (;;) {
    const name = identifierAt(text, index);
    if (name === undefined) return undefined;
    names.push(name.value);
    index = name.end;
    if (text.startsWith(')=(', index)) return names;
    if (!text.startsWith(', ', index)) return undefined;
    index += 2;
  }
}

/**
 * One identifier at `at`: `"…"` with `""` for a quote inside, or a run of characters up to a comma or a parenthesis.
 */
function identifierAt(text: string, at: number): { value: string; end: number } | undefined {
  if (text[at] !== '"') {
    const end = text.slice(at).search(/[,()]/);
    return end <= 0 ? undefined : { value: text.slice(at, at + end), end: at + end };
  }
  let value = '';
  for (let index = at + 1; index < text.length; index++) {
    if (text[index] !== '"') value += text[index];
    else if (text[index + 1] === '"') value += text[++index];
    else return value === '' ? undefined : { value, end: index + 1 };
  }
  return undefined;
}

/**
 * The `ErrorFields` of a model: each column with its attribute (and each attribute with itself), and the visible
 * attributes. Pure: it reads the attribute definitions it is given.
 * @example errorFieldsOf({ serialNo: { field: 'serial_no' } }, new Set(['serialNo'])).columns.get('serial_no')
 *   // 'serialNo'
 */
export function errorFieldsOf(
  attributes: Readonly<Record<string, { readonly field?: string | undefined }>>,
  visible: ReadonlySet<string>,
): ErrorFields {
  const columns = new Map<string, string>();
  for (const name of Object.keys(attributes)) columns.set(name, name);
  for (const [name, attribute] of Object.entries(attributes)) columns.set(attribute.field ?? name, name);
  return { columns, visible };
}
