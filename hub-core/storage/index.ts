// Where data lives: the SQLite database, each dataset's append-only log and its indexes, compaction,
// the push spool and disk usage.
export { CompactionService } from './compaction-service.js';
export { openDatabase } from './database.js';
export type { Db } from './database.js';
export { DEFAULT_COMPACTION, compactionProblems, compactionSettings } from './dataset-compaction.js';
export { indexKeys, parseIndexExpression } from './dataset-index.js';
export { CircuitBreakerTripped, Dataset, WHOLE_STEP_OFFSETS } from './dataset-log.js';
export type { DatasetInfo, DatasetRow, IndexInfo, LiveRow, ReadOptions, WriteResult, WriteRun } from './dataset-log.js';
export { DatasetStore } from './dataset-store.js';
export { PushSpool, spoolText, type SpoolLines } from './push-spool.js';
export { WalCheckpointer } from './wal-checkpointer.js';
