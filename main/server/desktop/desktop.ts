// The desktop host's own routes under /desktop: saved connections and the remote portal, remote
// instances (proxied so their tokens stay in the keychain), and the local workspace's test runner.
// Same authentication as /api (see app.ts); none of these is part of the instance API.
import type { FastifyInstance } from 'fastify';
import type { DesktopContext } from './desktop-context.js';
import { portalRoutes } from './desktop-portal.js';
import { remoteRoutes } from './desktop-remote.js';
import { workspaceRoutes } from './desktop-workspace.js';
import { downloadRoutes } from './desktop-download.js';
import { rulesSyncRoutes } from './desktop-rules-sync.js';
import { configFileRoutes } from './desktop-config-files.js';
import { registryConnectionRoutes } from './desktop-registries.js';
import { workspaceOpenRoutes } from './desktop-workspace-open.js';
import { schedulerRoutes } from './desktop-scheduler.js';
import { sampleRoutes } from './desktop-sample.js';

export type { DesktopContext };
import { workspaceReviewRoutes } from './desktop-workspace-review.js';
import { WorkspaceTestTasks } from './workspace-test-tasks.js';
import { WorkspaceTestLoop } from './workspace-test-loop.js';

export async function desktopPlugin(app: FastifyInstance, ctx: DesktopContext): Promise<void> {
  await app.register(async (scope) => portalRoutes(scope, ctx));
  await app.register(async (scope) => remoteRoutes(scope, ctx));
  const tasks = new WorkspaceTestTasks();
  const loop = new WorkspaceTestLoop(ctx, tasks);
  await app.register(async (scope) => workspaceRoutes(scope, ctx, tasks));
  await app.register(async (scope) => workspaceReviewRoutes(scope, ctx, tasks, loop));
  await app.register(async (scope) => downloadRoutes(scope, ctx));
  await app.register(async (scope) => rulesSyncRoutes(scope, ctx));
  await app.register(async (scope) => configFileRoutes(scope, ctx));
  await app.register(async (scope) => registryConnectionRoutes(scope, ctx));
  await app.register(async (scope) => workspaceOpenRoutes(scope, ctx));
  await app.register(async (scope) => schedulerRoutes(scope, ctx));
  await app.register(async (scope) => sampleRoutes(scope, ctx));
}
