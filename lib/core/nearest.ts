/** nearest: the known name a misspelt one most likely meant, for registration errors. */

/**
 * The candidate closest to `name` by `typoDistance` (case-insensitive), when it is close enough to
 * be a likely typo: at most a third of the name's length, and at least 1. Undefined otherwise.
 * @example nearest('pasword', ['id', 'password', 'email']) // 'password'
 * @example nearest('colour', ['id', 'name']) // undefined
 */
export function nearest(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = typoDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/**
 * Edit distance in which swapping two neighbouring letters is one edit, as a typist makes it
 * (optimal string alignment): `nmae` is one edit from `name`. Never more than `editDistance`.
 * @example typoDistance('emial', 'email') // 1
 */
export function typoDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * Levenshtein distance: the fewest single-character insertions, deletions and substitutions.
 * @example editDistance('kitten', 'sitting') // 3
 */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * `; did you mean 'x'?` for the nearest candidate, or nothing: the tail of a registration error.
 * @example didYouMean('pasword', ['password']) // "; did you mean 'password'?"
 */
export function didYouMean(name: string, candidates: readonly string[]): string {
  const guess = nearest(name, candidates);
  return guess === undefined ? '' : `; did you mean '${guess}'?`;
}
