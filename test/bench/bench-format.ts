// The bench report's numbers and table.

export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');
export const fmtMB = (kB: number): string => `${(kB / 1024).toFixed(1)} MB`;

export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  const right = new Set([1, 2, 3, 4]);
  const line = (r: string[]): string =>
    r.map((cell, c) => (right.has(c) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join('  ').trimEnd();
  const sep = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(rows[0]!), sep, ...rows.slice(1).map(line)].join('\n');
}
