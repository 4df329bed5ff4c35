// Worker-thread entry of an impact's test judging (hub-core/project/impact-tests.ts): the workspace's tests run twice in fresh
// temporary hubs, off the host's event loop; cancelling the impact terminates the worker.
import { parentPort, workerData } from 'node:worker_threads';
import { judgeDraft } from '../../hub-core/project/index.js';
import type { ConfigEntity } from '../../hub-core/config/index.js';

const { dir, names, draft } = workerData as { dir: string; names: string[]; draft: ConfigEntity };
parentPort?.postMessage(await judgeDraft(dir, names, draft));
