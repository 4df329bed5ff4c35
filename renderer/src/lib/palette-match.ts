// The palette's matching. Only the label is matched letter by letter: the kind in front of it (pipe, dataset, pump,
// …) is a category tag, and letters that happen to fall in it ("set" in "dataset") must not make every item of that
// kind a match. The tag counts as a whole word only: "pipe people-lo" keeps pipes whose label matches "people-lo",
// and "pump" alone lists the pump operations.
import fuzzysort from 'fuzzysort';
import type { PaletteItem } from './palette-items';

export interface PaletteMatch {
  item: PaletteItem;
  score: number;
  /** Matched positions in `${kind} ${label}`, as the palette shows them. */
  hits: Set<number>;
}

/** A tag-only match ranks below every label match. */
const TAG_ONLY_SCORE = 0.01;

const kindHits = (length: number): number[] => Array.from({ length }, (_, i) => i);

export function matchPalette(query: string, items: readonly PaletteItem[]): PaletteMatch[] {
  const q = query.trim();
  const words = q.split(/\s+/);
  const tag = words[0]!.toLowerCase();
  const rest = words.slice(1).join(' ');
  const out: PaletteMatch[] = [];
  for (const item of items) {
    const offset = item.kind.length + 1;
    const isTag = tag.length >= 2 && item.kind.toLowerCase().startsWith(tag);
    let best: PaletteMatch | null = null;
    const whole = fuzzysort.single(q, item.label);
    if (whole) best = { item, score: whole.score, hits: new Set(whole.indexes.map((i) => i + offset)) };
    if (isTag && rest !== '') {
      const r = fuzzysort.single(rest, item.label);
      if (r && (best === null || r.score > best.score)) {
        best = { item, score: r.score, hits: new Set([...kindHits(tag.length), ...r.indexes.map((i) => i + offset)]) };
      }
    } else if (isTag && best === null) {
      best = { item, score: TAG_ONLY_SCORE, hits: new Set(kindHits(tag.length)) };
    }
    if (best) out.push(best);
  }
  return out;
}
