// The datasets as a worker thread reads them: through a read-only connection of its own. Creating a join's index is
// a write, which the hub's thread (the single writer) must know of: the worker asks it and waits (`indexOnHub`).

import { DatasetStore, type Dataset } from '../../storage/index.js';
import { HubError } from '../../base/index.js';
import type Database from 'better-sqlite3';

/**
 * Ask the hub's thread for an index through `post`, and wait for the answer in `signal` ([state, value]: state 0
 * while the hub works on it, 1 answered, 2 failed).
 */
export function indexRequester(signal: Int32Array, post: (dataset: string, expression: string) => void): (dataset: string, expression: string) => number {
  return (dataset, expression) => {
    Atomics.store(signal, 0, 0);
    post(dataset, expression);
    if (Atomics.wait(signal, 0, 0, 120_000) === 'timed-out') throw new HubError(503, 'the hub did not create an index a join needs', `${dataset}: ${expression}`);
    if (Atomics.load(signal, 0) !== 1) throw new HubError(500, `the index ${expression} of dataset ${JSON.stringify(dataset)} could not be created`);
    return Atomics.load(signal, 1);
  };
}

/** Answer a worker's index request (on the hub's thread) through its `signal`. */
export function answerIndexRequest(datasets: DatasetStore, signal: Int32Array, dataset: string, expression: string): void {
  try {
    const idx = datasets.require(dataset).ensureIndex(expression);
    Atomics.store(signal, 1, idx);
    Atomics.store(signal, 0, 1);
  } catch {
    Atomics.store(signal, 0, 2);
  }
  Atomics.notify(signal, 0);
}

/** The datasets of one job, read through the worker's connection; a join's index comes from the hub. */
export class WorkerDatasets extends DatasetStore {
  private readonly known = new Map<string, number>();
  private readonly patched = new WeakSet<Dataset>();

  constructor(
    db: Database.Database,
    private readonly indexOnHub: (dataset: string, expression: string) => number,
  ) {
    super(db);
  }

  override get(name: string): Dataset | undefined {
    const ds = super.get(name);
    if (ds !== undefined && !this.patched.has(ds)) {
      this.patched.add(ds);
      ds.ensureIndex = (expression: string): number => {
        const key = `${name}\u0000${expression}`;
        let idx = this.known.get(key) ?? ds.listIndexes().find((ix) => ix.expression === expression)?.id;
        idx ??= this.indexOnHub(name, expression);
        this.known.set(key, idx);
        return idx;
      };
    }
    return ds;
  }
}
