// A preview worker thread: runs one DTL evaluation of a preview at a time (preview-jobs.ts) on a pipe runtime built
// from the configuration and the few values it needs, reading datasets through a read-only connection of its own.
// It writes nothing. The hub's thread terminates it when a job passes its deadline or its client goes away.

import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { DatasetLookup, KeptSnapshots, PipeRuntime, WorkerDatasets, errorOf, indexRequester, lowerThreadPriority } from '../pipes/index.js';
import { guardServingThread } from '../dtl/index.js';
import { parseConfigText } from '../base/index.js';
import type { ConfigEntity } from '../config/index.js';
import { runPreviewJobAsync, type PreviewJob } from './preview-jobs.js';
import type { FromPreviewWorker, PreviewTask, PreviewWorkerInit } from './preview-protocol.js';

const init = workerData as PreviewWorkerInit;
lowerThreadPriority(init.nice);
// The same bound as on the hub's thread: a job that holds this thread 12 s without a pause stops in the same words.
guardServingThread();
const port = parentPort!;
const post = (m: FromPreviewWorker): void => port.postMessage(m);
const indexOnHub = indexRequester(new Int32Array(init.signal), (dataset, expression) => post({ type: 'ensure-index', dataset, expression }));
const keptSnapshots = new KeptSnapshots();

port.on('message', async ({ id, spec, job }: PreviewTask) => {
  let db: Database.Database | undefined;
  try {
    db = new Database(init.dbFile, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const datasets = new WorkerDatasets(db, indexOnHub);
    const runtime = new PipeRuntime(
      parseConfigText(spec.configText) as ConfigEntity,
      {
        datasets,
        lookup: new DatasetLookup(datasets, undefined, keptSnapshots),
        vars: { env: (name) => spec.env[name], secret: (name, scope) => (scope === '' && Object.hasOwn(spec.secrets, name) ? spec.secrets[name] : undefined), mask: (text) => text },
        system: () => undefined,
        namespaces: () => spec.namespaces,
        startTracking: () => undefined,
      },
      { tracked: false, standalone: spec.standalone },
    );
    const parsed = parseConfigText(job) as PreviewJob;
    const result = await runPreviewJobAsync(runtime, parsed);
    // A run's prepared entities are strings already: cloned as they are, the hub's thread need not parse them again.
    if (parsed.kind === 'process' || parsed.kind === 'process-source') post({ type: 'done-value', id, value: result });
    else post({ type: 'done', id, text: JSON.stringify(result) });
  } catch (e) {
    post({ type: 'failed', id, error: errorOf(e) });
  } finally {
    db?.close();
  }
});
