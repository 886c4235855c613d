/**
 * Keyset pagination over a whole sort tuple: the condition "comes after this row" in an order with NULLs and mixed
 * directions.
 */

/** One column of an order, as a keyset follows it. */
export interface KeyColumn {
  /** The SQL expression the order sorts by: a quoted column, or a subquery for a relation sort. */
  readonly expression: string;
  readonly descending: boolean;
  /** True when NULL comes before every value in this column's order. */
  readonly nullsFirst: boolean;
}

/** A test on one key column against the last row's value: `beyond` is `>` ascending and `<` descending. */
export interface KeyAtom {
  readonly index: number;
  readonly test: 'null' | 'notNull' | 'equal' | 'beyond' | 'beyondOrNull';
}

const DIRECTION = /^\s*(ASC|DESC)(?:\s+NULLS\s+(FIRST|LAST))?\s*$/i;

/**
 * How an order item's direction text sorts, or undefined when it is not a direction: explicit
 * `NULLS FIRST`/`NULLS LAST` as written; otherwise the dialect's default, NULL the largest value
 * on PostgreSQL and the smallest on SQLite and MariaDB.
 * @example orderDirection('DESC NULLS LAST', 'postgres') // { descending: true, nullsFirst: false }
 * @example orderDirection('ASC', 'sqlite') // { descending: false, nullsFirst: true }
 */
export function orderDirection(
  direction: string,
  dialect: string,
): { descending: boolean; nullsFirst: boolean } | undefined {
  const match = DIRECTION.exec(direction);
  if (match === null) return undefined;
  const descending = match[1]!.toUpperCase() === 'DESC';
  const nulls = match[2]?.toUpperCase();
  if (nulls !== undefined) return { descending, nullsFirst: nulls === 'FIRST' };
  const nullIsLargest = dialect === 'postgres';
  return { descending, nullsFirst: nullIsLargest === descending };
}

/**
 * The rows after the last row read, as alternatives (OR) of conjunctions (AND) of tests: equal on
 * every column before the `i`-th and beyond it on the `i`-th, NULL-aware. `lastIsNull[i]` says
 * whether the last row's `i`-th value is NULL. An empty list matches nothing.
 * @example
 * const parts = [
 *   { expression: 'price', descending: true, nullsFirst: false },
 *   { expression: 'id', descending: false, nullsFirst: true },
 * ];
 * keysetAlternatives(parts, [false, false])
 *   // [[{ index: 0, test: 'beyondOrNull' }], [{ index: 0, test: 'equal' }, { index: 1, test: 'beyond' }]]
 */
export function keysetAlternatives(columns: readonly KeyColumn[], lastIsNull: readonly boolean[]): KeyAtom[][] {
  const alternatives: KeyAtom[][] = [];
  const equal: KeyAtom[] = [];
  for (const [index, column] of columns.entries()) {
    const isNull = lastIsNull[index] === true;
    const after: KeyAtom | undefined = isNull
      ? column.nullsFirst
        ? { index, test: 'notNull' }
        : undefined
      : { index, test: column.nullsFirst ? 'beyond' : 'beyondOrNull' };
    if (after !== undefined) alternatives.push([...equal, after]);
    equal.push({ index, test: isNull ? 'null' : 'equal' });
  }
  return alternatives;
}

/**
 * The keyset condition as SQL: `last` holds the last row's values as SQL literals (null for NULL). When the first
 * column's test bounds it on one side, that bound leads, so an index on the column seeks to the last row instead of
 * filtering every row before it.
 * @example
 * keysetSql([{ expression: 'p', descending: true, nullsFirst: true }, { expression: 'id', descending: false,
 *   nullsFirst: true }], ['5', '41']) // '(p <= 5 AND ((p < 5) OR (p = 5 AND id > 41)))'
 * @example keysetSql([{ expression: '"id"', descending: false, nullsFirst: true }], ['41']) // '(("id" > 41))'
 */
export function keysetSql(columns: readonly KeyColumn[], last: readonly (string | null)[]): string {
  const atom = ({ index, test }: KeyAtom): string => {
    const { expression, descending } = columns[index]!;
    const beyond = `${expression} ${descending ? '<' : '>'} ${last[index]}`;
    switch (test) {
      case 'null':
        return `${expression} IS NULL`;
      case 'notNull':
        return `${expression} IS NOT NULL`;
      case 'equal':
        return `${expression} = ${last[index]}`;
      case 'beyond':
        return beyond;
      case 'beyondOrNull':
        return `(${beyond} OR ${expression} IS NULL)`;
    }
  };
  const alternatives = keysetAlternatives(
    columns,
    last.map((value) => value === null),
  );
  if (alternatives.length === 0) return '1 = 0';
  const condition = `(${alternatives.map((all) => `(${all.map(atom).join(' AND ')})`).join(' OR ')})`;
  // The OR of alternatives gives an index no starting point: when every alternative tests the first column against a
  // value (`beyond` or `equal`), the range it implies on that column is stated too, so an index on it seeks there.
  const first = columns[0]!;
  const bounded = alternatives.length > 1 && alternatives.every((all) => ['beyond', 'equal'].includes(all[0]!.test));
  return bounded ? `(${first.expression} ${first.descending ? '<=' : '>='} ${last[0]} AND ${condition})` : condition;
}
