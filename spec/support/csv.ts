/** A small RFC 4180 reader for the export tests: quoted fields may hold commas, quotes and line breaks. */

/**
 * The records of a CSV text, each as its fields; a final line break ends the last record.
 * @example parseCsv('a,"b ""c"""\n1,2\n') // [['a', 'b "c"'], ['1', '2']]
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[i + 1] === '"') ((field += '"'), i++);
      else quoted = false;
    } else if (char === '"') quoted = true;
    else if (char === ',') (record.push(field), (field = ''));
    else if (char === '\n') (record.push(field), records.push(record), (record = []), (field = ''));
    else field += char;
  }
  if (field !== '' || record.length > 0) (record.push(field), records.push(record));
  return records;
}
