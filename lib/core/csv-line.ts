/** CSV lines as RFC 4180 writes them: the bytes csv-stringify writes with its defaults, without a per-row object. */

/** A cell that must be quoted: it holds a quote, a comma or a line break. */
const NEEDS_QUOTES = /[",\n\r]/;

/**
 * One cell as CSV text: quoted, with its quotes doubled, when it holds a quote, a comma, a line
 * feed or a carriage return; as it is otherwise (csv-stringify's defaults).
 * @example csvField('a "b", c') // '"a ""b"", c"'
 * @example csvField('plain') // 'plain'
 */
export function csvField(cell: string): string {
  return NEEDS_QUOTES.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/**
 * One record as a CSV line, the line feed that ends it included.
 * @example csvLine(['1', 'a,b']) // '1,"a,b"\n'
 */
export function csvLine(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) line += (i === 0 ? '' : ',') + csvField(cells[i]!);
  return `${line}\n`;
}
