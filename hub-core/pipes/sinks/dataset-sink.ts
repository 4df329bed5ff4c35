// The dataset sink's run: each batch is written to the pipe's dataset inside the pump's batch transaction (compaction
// as it writes is the dataset's own, see dataset-log.ts); a full run remembers the ids it wrote and, at its end,
// deletes what it did not write (deletion tracking, unless the sink sets "deletion_tracking": false).

import type { EffectivePipe } from '../../config/index.js';
import type { WriteRun } from '../../storage/index.js';
import { idsOf, type LocalSink, type SinkRun } from './sink.js';

export function openDatasetSink(pipe: EffectivePipe, run: SinkRun): LocalSink {
  const sink = run.dataset();
  const writeRun: WriteRun = { changes: 0, baseCount: sink.row().live_count };
  const trackDeletes = pipe.sink['deletion_tracking'] !== false;
  return {
    local: true,
    write(out) {
      if (out.length === 0) return 0;
      const result = sink.write(out, { run: writeRun });
      if (run.full && trackDeletes) run.seen.mark(idsOf(out));
      return result.written;
    },
    writePrepared(prepared) {
      if (prepared.length === 0) return 0;
      const result = sink.writePrepared(prepared, { run: writeRun });
      if (run.full && trackDeletes) run.seen.mark(prepared.map((p) => p.id));
      return result.written;
    },
    endFull() {
      if (!trackDeletes) return 0;
      const { sql, params } = run.seen.sql();
      const n = sink.deleteAllExcept(sql, params, writeRun);
      run.seen.clear();
      return n;
    },
  };
}
