// Node-wide maintenance the hosted service's command-line client asks for: `sesam restart`, `sesam reset` (a
// developer node only there; a desktop hub always is one) and `sesam upload -upload-delete-sink-datasets`. A restart
// of the embedded hub does not end its process: every run stops, the schedules start over and the node start time
// changes, which is how the client sees that the node came back.

import type { Hub } from './hub.js';
import { effectivePipeConfig } from './pipes/index.js';
import { configKind } from './config/index.js';

/** Stop the run of all pipes and every pump run; the schedules start again from now. */
export async function restartNode(hub: Hub): Promise<void> {
  await hub.runAll.stop(30_000);
  await Promise.all(hub.pipes.ids().map((id) => hub.pumps.runner.stop(id)));
  const scheduled = hub.pumps.scheduler.isStarted;
  hub.pumps.scheduler.stop();
  if (scheduled) hub.pumps.scheduler.start();
  hub.markStarted();
}

/** Everything goes: configuration, datasets, environment variables, secrets and pump state. */
export async function resetNode(hub: Hub): Promise<void> {
  await hub.runAll.stop(30_000);
  await Promise.all(hub.pipes.ids().map((id) => hub.pumps.runner.stop(id)));
  hub.config.transaction(() => {
    for (const e of hub.config.list()) {
      const kind = configKind(e);
      if (kind === 'system') hub.secrets.deleteScope(e._id);
      hub.config.delete(kind, e._id);
    }
  });
  hub.secrets.deleteScope('');
  hub.env.set({}, true);
  for (const name of hub.datasets.names()) hub.datasets.delete(name);
  for (const id of hub.pumps.state.pipes()) hub.pumps.state.delete(id);
  await restartNode(hub);
}

/** Delete the sink dataset of every pipe that writes one; answers the names deleted. */
export async function deleteAllSinkDatasets(hub: Hub): Promise<string[]> {
  const deleted: string[] = [];
  for (const id of hub.pipes.ids()) {
    const sink = effectivePipeConfig(hub.pipes.require(id)).sink;
    const name = sink.type === 'dataset' && typeof sink['dataset'] === 'string' ? sink['dataset'] : undefined;
    if (name === undefined || hub.datasets.get(name) === undefined) continue;
    await hub.pumps.runner.stop(id);
    hub.datasets.delete(name);
    deleted.push(name);
  }
  return deleted.sort();
}
