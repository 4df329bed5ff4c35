// How the explorer shows stored values: transit-encoded strings typed (`~f129.90` as 129.90, `~t2020-06-08T00:00:00Z`
// as a date, `~:crm-org:ae` as a link to the entity it names) and namespaced property names split into their
// namespace and short name. The raw form stays one toggle away (the grid's "Raw values", and JSON mode).

export type TypedKind = 'decimal' | 'datetime' | 'ref' | 'uuid' | 'uri' | 'bytes' | 'text';

export interface TypedValue {
  text: string;
  kind: TypedKind;
  /** For a `~:` value: the namespace and the whole identifier it names (`crm-org:ae`). */
  ref?: { ns: string; id: string };
}

/** A string value as the grid shows it; null when it is not transit-encoded (shown as it is). */
export function typedValue(value: string): TypedValue | null {
  if (value.length < 2 || value[0] !== '~') return null;
  const tag = value[1];
  const rest = value.slice(2);
  switch (tag) {
    case 'f':
      return { text: rest, kind: 'decimal' };
    case 't':
      return { text: dateText(rest), kind: 'datetime' };
    case ':': {
      const colon = rest.indexOf(':');
      return { text: rest, kind: 'ref', ref: { ns: colon > 0 ? rest.slice(0, colon) : '', id: rest } };
    }
    case 'u':
      return { text: rest, kind: 'uuid' };
    case 'r':
      return { text: rest, kind: 'uri' };
    case 'b':
      return { text: `${Math.floor((rest.length * 3) / 4)} bytes`, kind: 'bytes' };
    case '~':
      return { text: value.slice(1), kind: 'text' };
    default:
      return null;
  }
}

/** `2020-06-08T00:00:00Z` as `2020-06-08`; with a time of day, `2020-06-08 12:30:05Z` (UTC, as stored). */
export function dateText(iso: string): string {
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d(?::\d\d)?)(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/.exec(iso);
  if (!m) return iso;
  const [, day, time, fraction, zone] = m;
  if (/^00:00(:00)?$/.test(time!) && !fraction) return day!;
  return `${day} ${time}${fraction ?? ''}${zone ?? ''}`;
}

/** `ns:short` split at its first colon; a name without one (or `_id`-like bookkeeping) has no namespace. */
export function splitName(name: string): { ns: string | null; short: string } {
  const colon = name.indexOf(':');
  if (colon <= 0 || name.startsWith('_') || colon === name.length - 1) return { ns: null, short: name };
  return { ns: name.slice(0, colon), short: name.slice(colon + 1) };
}

/** Runs of consecutive columns that share a namespace: what the grid's namespace row spans. */
export function namespaceRuns(columns: readonly string[]): { ns: string | null; span: number }[] {
  const runs: { ns: string | null; span: number }[] = [];
  for (const c of columns) {
    const { ns } = splitName(c);
    const last = runs.at(-1);
    if (last && last.ns === ns) last.span++;
    else runs.push({ ns, span: 1 });
  }
  return runs;
}

/** Where a `~:` reference leads: the dataset named by its namespace, searched for the whole identifier. */
export function refHref(ref: { ns: string; id: string }): string {
  return `#/datasets/${encodeURIComponent(ref.ns)}/${encodeURIComponent(`id:${ref.id}`)}`;
}
