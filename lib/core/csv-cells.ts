/** CSV cells: values as text a spreadsheet shows and never runs. */

const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A value as CSV cell text: null and undefined empty, dates ISO 8601, objects JSON, and text
 * that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) prefixed with `'`.
 * @example csvCell('=HYPERLINK("x")') // "'=HYPERLINK(\"x\")"
 * @example csvCell(new Date(0)) // '1970-01-01T00:00:00.000Z'
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return neutralize(JSON.stringify(value));
  return typeof value === 'string' ? neutralize(value) : String(value);
}

function neutralize(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * The value at a dot path of a nested row (`category.name`), or undefined.
 * @example valueAt({ category: { name: 'Books' } }, 'category.name') // 'Books'
 */
export function valueAt(row: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined), row);
}

/**
 * The associations and their attributes a set of dot paths needs, as a tree: `{ category: { name: {} } }`.
 * @example includeTree(['name', 'category.name']) // { category: { name: {} } }
 */
export function includeTree(paths: readonly string[]): Record<string, Record<string, unknown>> {
  const tree: Record<string, Record<string, unknown>> = {};
  for (const path of paths.filter((p) => p.includes('.'))) {
    const keys = path.split('.');
    let node: Record<string, unknown> = tree;
    for (const key of keys) node = (node[key] ??= {}) as Record<string, unknown>;
  }
  return tree;
}
