// "Did you mean ...?" for a mistyped function name: the nearest known name by typo distance.


/**
 * Optimal string alignment distance (Damerau-Levenshtein without reuse of a transposed pair): a swap of two
 * neighbouring letters counts one edit, so the typo "cocnat" is one edit from "concat" and two from "count".
 */
export function typoDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push(Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => rows[i]![j]!;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, at(i - 2, j - 2) + 1);
      rows[i]![j] = d;
    }
  }
  return at(a.length, b.length);
}

/** The known name nearest to a typo (at most two edits); between equally near names, one of the typo's length. */
export function nearestName(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const n of names) {
    const d = typoDistance(name, n);
    if (d > 2) continue;
    const score = d * 2 + (n.length === name.length ? 0 : 1);
    if (score < bestScore) {
      best = n;
      bestScore = score;
    }
  }
  return best;
}

/** The message tail naming the nearest known name, or '' when none is near. */
export function suggestion(name: string, names: readonly string[]): string {
  const best = nearestName(name, names);
  return best === undefined ? '' : `; did you mean "${best}"?`;
}
