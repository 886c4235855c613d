/** Query-string values as the actions read them. */

/**
 * One query parameter as a string: a repeated parameter (`?a=x&a=y`) is joined with commas,
 * so a column check sees and names the whole of what the client sent; absent stays undefined.
 * @example singleParam(['name', 'id']) // 'name,id'
 */
export function singleParam(value: string | readonly string[] | undefined): string | undefined {
  return typeof value === 'string' || value === undefined ? value : value.join(',');
}

/**
 * True for a plain object as qs and JSON give them (not null, not an array).
 * @example isRecord({ gte: '10' }) // true
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
