// The hub answers a POST of an id that is taken with 409 `pipe "<id>" already exists` and an API hint ("use PUT
// /pipes/<id>/config"). The UI says it in its own words and offers to open the one that exists.
import { HubRequestError } from './api';

export interface ExistingEntity {
  kind: 'pipe' | 'system';
  id: string;
}

/** The pipe or system a refused create names as already existing, else null. */
export function existingEntity(e: unknown): ExistingEntity | null {
  if (!(e instanceof HubRequestError) || e.info.status !== 409) return null;
  const m = /^(pipe|system) ("(?:[^"\\]|\\.)*") already exists$/.exec(e.info.error);
  if (!m) return null;
  try {
    return { kind: m[1] as 'pipe' | 'system', id: JSON.parse(m[2]!) as string };
  } catch {
    return null;
  }
}
