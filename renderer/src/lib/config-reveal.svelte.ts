// A place in a configuration to show once its editor opens (a config search result): the editor of that pipe or
// system takes it when it loads and highlights the element, scrolled into view.

export interface ConfigPlace {
  /** "pipe" or "system", as the editors name themselves. */
  kind: string;
  id: string;
  /** A hub JSON path ("$.source.datasets[1]"). */
  path: string;
}

const pending: { place: ConfigPlace | null } = $state({ place: null });

export function revealConfigPlace(place: ConfigPlace): void {
  pending.place = place;
}

/** The place left for this editor, taken (so it shows once), or null. */
export function takeConfigPlace(kind: string, id: string): string | null {
  const place = pending.place;
  if (place === null || place.kind !== kind || place.id !== id) return null;
  pending.place = null;
  return place.path;
}

/** A search result's path (`source.datasets[1]`, `["odd key"]`, '' for the root) as a hub JSON path. */
export function hubJsonPath(where: string): string {
  return where === '' ? '$' : where.startsWith('[') ? `$${where}` : `$.${where}`;
}
