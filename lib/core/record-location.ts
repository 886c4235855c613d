/** The `Location` of a created record: the read URL beside the collection it was posted to. */

/**
 * The read URL of a record created by a POST to `collectionPath`: that path (trailing slashes
 * dropped) then the record's find value, percent-encoded. Undefined when the value cannot name
 * the record in a path (null, empty, an object, a string with a lone surrogate).
 * @example recordLocation('/api/products', '0b6f…') // '/api/products/0b6f…'
 * @example recordLocation('/api/orders/', 7) // '/api/orders/7'
 */
export function recordLocation(collectionPath: string, value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'bigint') return undefined;
  if (value === '') return undefined;
  try {
    return `${collectionPath.replace(/\/+$/, '')}/${encodeURIComponent(String(value))}`;
  } catch {
    return undefined; // a lone surrogate, which no URL can carry
  }
}
