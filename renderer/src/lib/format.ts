// Small display helpers: compact cell values, error messages in words, a line diff for entity versions.
import { HubRequestError } from './api';
import { existingEntity } from './existing-entity';

/** A cell value: strings as they are, everything else as compact JSON, cut to `max` characters. */
export function compact(value: unknown, max = 120): string {
  if (value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** An error as a sentence a user can act on. */
export function errorText(e: unknown, what = 'The request'): string {
  if (e instanceof HubRequestError) {
    const { status, error, detail } = e.info;
    if (status === 401) return 'You are signed out. Open a new login link from the hub.';
    const taken = existingEntity(e);
    if (taken) return `${what} failed: a ${taken.kind} “${taken.id}” already exists. Open it to change it, or pick another id.`;
    return `${what} failed (${status}): ${error}${detail ? ` — ${detail}` : ''}`;
  }
  if (e instanceof TypeError) return `${what} failed: the hub did not answer (${e.message}).`;
  return `${what} failed: ${e instanceof Error ? e.message : String(e)}`;
}

export function encode(id: string): string {
  return encodeURIComponent(id);
}

/** Columns of a page of entities: `_id` first, then other keys in order of appearance, `_`-keys last. */
export function columnsOf(rows: Record<string, unknown>[]): string[] {
  const plain: string[] = [];
  const internal: string[] = [];
  const seen = new Set<string>(['_id']);
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (seen.has(key)) continue;
      seen.add(key);
      (key.startsWith('_') ? internal : plain).push(key);
    }
  }
  return ['_id', ...plain, ...internal];
}

export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/** A line diff (longest common subsequence); inputs beyond `limit` lines fall back to remove-all/add-all. */
export function lineDiff(before: string, after: string, limit = 3000): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length > limit || b.length > limit) {
    return [...a.map((text) => ({ op: '-' as const, text })), ...b.map((text) => ({ op: '+' as const, text }))];
  }
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i]!;
    const next = lcs[i + 1]!;
    for (let j = m - 1; j >= 0; j--) row[j] = a[i] === b[j] ? next[j + 1]! + 1 : Math.max(next[j]!, row[j + 1]!);
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: a[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ op: '-', text: a[i++]! });
    else out.push({ op: '+', text: b[j++]! });
  }
  while (i < n) out.push({ op: '-', text: a[i++]! });
  while (j < m) out.push({ op: '+', text: b[j++]! });
  return out;
}

/** An entity as pretty JSON without the properties the dataset maintains (they change with every version). */
export function versionText(entity: Record<string, unknown>): string {
  const { _updated: _u, _previous: _p, _ts: _t, _hash: _h, ...rest } = entity;
  return JSON.stringify(rest, null, 2);
}

/** `_ts` (microseconds) as an ISO time; anything unexpected as it is. */
export function tsText(ts: unknown): string {
  if (typeof ts !== 'number') return compact(ts);
  const d = new Date(Math.floor(ts / 1000));
  return Number.isNaN(d.getTime()) ? String(ts) : d.toISOString();
}

/** A count with thousands separators. */
export function countText(n: number): string {
  return n.toLocaleString('en-US');
}

/** A size in bytes, in B, kB, MB or GB (powers of 1024, one decimal from kB on); '' when unknown. */
export function bytesText(n: number | undefined): string {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/**
 * The `subset` query value for "index = value": the value is read as JSON when it parses (`5`, `true`, `"5"`),
 * otherwise taken as text, so `staff` and `"staff"` mean the same.
 */
export function subsetExpression(index: string, value: string): string {
  const text = value.trim();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // plain text
  }
  return JSON.stringify(['eq', index, parsed]);
}
