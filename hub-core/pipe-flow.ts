// What a pump does to entities between its source and its sink, kept in one place for every path that needs it: pump
// runs, JSON Push receivers, and the dry runs behind the pipe stages and the preview (pipe-stages.ts).
//
//   source             the entities as the source gives them
//   before-transforms  what the first transform is fed: the source entities as they are (this hub does no
//                      source-side processing)
//   after-transforms   what the last transform outputs: a filtered entity arrives deleted and marked `_filtered`, a
//                      discarded one is gone; without a transform, the source entities
//   sink               after the sink step below: what the sink is given

import type { JsonObject } from './json.js';
import { MAINTAINED_PROPERTIES, stripInternal } from './entity.js';
import { addEntityIds, type NamespaceSettings, type DtlDict } from './dtl/index.js';

export type SinkStep = (entity: JsonObject) => JsonObject;

/**
 * The sink step. The properties the hub maintains (`_updated`, `_ts`, `_hash`, `_previous`) are the source's
 * bookkeeping, not content, so they are dropped (a dataset sink keeps its own); with namespaced identifiers on, `$ids`
 * lists the entity's identities (those it has plus its `_id`), whether or not the pipe has a transform. The entity
 * given is never changed.
 */
export function sinkStep(namespaces: NamespaceSettings | undefined): SinkStep {
  const ids = namespaces?.enabled === true;
  return (entity) => {
    let out = entity;
    for (const k of MAINTAINED_PROPERTIES) {
      if (Object.hasOwn(entity, k)) {
        out = stripInternal(entity);
        break;
      }
    }
    if (ids) {
      if (out === entity) out = { ...entity };
      addEntityIds(out as DtlDict);
    }
    return out;
  };
}
