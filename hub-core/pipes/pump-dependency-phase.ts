// A pump run's dependency-tracking phase: the source entities whose lookups the joined datasets' changes touch, again.
import type { JsonObject } from '../base/index.js';
import { changedKeys } from './dependency-tracking.js';
import type { BatchOrigin, JoinedChange } from './lineage-store.js';
import type { RunHost } from './pump-run-types.js';

/** Joined changes recorded as the reason one source entity was processed again. */
const JOINED_PER_ENTITY = 8;

/**
 * Dependency tracking: the source entities that looked up keys which the joined datasets' changes (since the pipe
 * last saw them) touch are processed again, latest versions read by id; then the tracking offsets move to the ends
 * the changes were read up to. Entities after the source's last-seen offset are left to the run's own reading.
 */
export async function dependencyPhase(
  host: RunHost,
  id: string,
  sourceName: string,
  lastSeen: number | undefined,
  batchSize: number,
  writeBatch: (entities: JsonObject[], position: undefined, origin: BatchOrigin) => Promise<void>,
  checkStop: () => Promise<void>,
): Promise<void> {
  const ends: { dataset: string; end: number }[] = [];
  const ids = new Set<string>();
  // Why each one is processed again: the joined entities whose change touched a key it looked up.
  const joined = new Map<string, JoinedChange[]>();
  for (const { dataset, offset } of host.state.trackingOffsets(id)) {
    const ds = host.datasets.get(dataset);
    if (!ds) continue;
    const end = ds.row().max_updated;
    if (end <= offset) continue;
    ends.push({ dataset, end });
    const owners = new Map<string, string[]>();
    for (const [path, keys] of changedKeys(ds, offset, host.state.dependencyPaths(id, dataset), owners)) {
      for (const key of keys) {
        for (const eid of host.state.dependents(id, dataset, path, key)) {
          ids.add(eid);
          const list = joined.get(eid) ?? [];
          if (list.length < JOINED_PER_ENTITY) list.push({ dataset, key, ids: owners.get(`${path}\u0000${key}`) ?? [] });
          joined.set(eid, list);
        }
      }
    }
  }
  const origin: BatchOrigin = { kind: 'dependency', joined };
  if (ends.length === 0) return;
  const source = host.datasets.get(sourceName);
  if (source && lastSeen !== undefined) {
    let batch: JsonObject[] = [];
    for (const eid of [...ids].sort()) {
      const e = source.get(eid);
      if (e === undefined || e._updated > lastSeen) continue;
      batch.push(e);
      if (batch.length >= batchSize) {
        await writeBatch(batch, undefined, origin);
        batch = [];
        await checkStop();
      }
    }
    if (batch.length > 0) await writeBatch(batch, undefined, origin);
  }
  host.state.transaction(() => {
    for (const { dataset, end } of ends) host.state.setTrackingOffset(id, dataset, end);
  });
}
