// A dataset: an append-only log of entity versions (reading, writing, compaction and their base in dataset-log-*.ts).
import { EntityError } from '../base/index.js';
import { compactsWhole } from './dataset-compaction.js';
import { DatasetStaging } from './dataset-log-staging.js';
import type { DatasetInfo, DatasetSettings } from './dataset-log-types.js';

export type {
  CircuitBreakerSettings,
  DatasetInfo,
  DatasetRow,
  DatasetSettings,
  IndexInfo,
  ReadOptions,
  WriteOptions,
  WriteResult,
  WriteRun,
} from './dataset-log-types.js';
export { CircuitBreakerTripped } from './dataset-log-types.js';
export type { CompactionFloor } from './dataset-log-base.js';
export type { LiveRow, LogRow } from './dataset-log-statements.js';
export { WHOLE_STEP_OFFSETS } from './dataset-log-compaction.js';

/** One dataset: an append-only log of entity versions plus a table of the latest version per `_id`. */
export class Dataset extends DatasetStaging {
  info(): DatasetInfo {
    const row = this.row();
    const settings = JSON.parse(row.settings) as DatasetSettings;
    const pending = (this.stmts.pendingCount.get() as { n: number }).n;
    const versions = this.stmts.versions.get() as { versions: number; removed: number; compacted_ts: number | null } | undefined;
    const compaction = this.compactionSettings(settings);
    return {
      _id: row.name,
      generation: row.generation,
      created: new Date(Math.floor(row.created_ts / 1000)).toISOString(),
      populated: row.populated === 1,
      'max-updated': row.max_updated < 0 ? null : row.max_updated,
      count: row.live_count,
      'deleted-count': row.deleted_count,
      completeness: row.completeness,
      'stored-versions': versions?.versions ?? 0,
      'bytes-on-disk': this.bytesOnDisk(),
      compaction: {
        'keep-versions': compaction.keepVersions,
        sink: compaction.sink,
        automatic: compaction.automatic,
        'time-threshold-hours': compaction.timeThresholdHours,
        'growth-threshold': compaction.growthThreshold,
        'whole-log': compactsWhole(compaction),
        due: this.wholeCompactionDue(),
        'last-run': versions?.compacted_ts ? new Date(Math.floor(versions.compacted_ts / 1000)).toISOString() : null,
        'removed-versions': versions?.removed ?? 0,
      },
      'circuit-breaker': {
        enabled: settings.circuitBreaker !== undefined,
        tripped: row.cb_tripped === 1,
        'pending-count': pending,
        info: row.cb_info,
      },
      indexes: this.listIndexes(),
    };
  }
}

export { EntityError };
