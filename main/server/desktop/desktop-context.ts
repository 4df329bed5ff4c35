// What the desktop routes (routes/desktop-*.ts) are given by the plugin that registers them (desktop.ts).
import type { Hub } from '../../../hub-core/hub.js';
import type { ConnectionStore } from '../../remote/connections.js';
import type { WorkspaceHost } from './workspace-host.js';

export interface DesktopContext {
  hub: Hub;
  dataDir: string;
  connections: ConnectionStore;
  /** The workspace folder open now, if any (the workbench may switch it: `workspaces`). */
  readonly workspaceDir: string | undefined;
  workspaces: WorkspaceHost;
}
