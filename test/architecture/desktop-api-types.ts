// A compile-time check, no test to run: the renderer's copy of the desktop API (it may not import main/)
// must be exactly the preload's. `npm run build` and `npm run typecheck` fail here when a member, a
// parameter, a view name or a menu command differs between the two.
import type { DesktopApi as ShellApi, MenuCommand, RecentWorkspaceInfo as ShellRecent, UpdateStatus as ShellUpdateStatus, WorkbenchView } from '../../main/electron/channels.js';
import type { connectionSchema } from '../../main/server/desktop/desktop-connections.js';
import type { Connection } from '../../hub-core/desktop-types.js';
import type { DesktopApi as RendererApi, DesktopMenuCommand, DesktopView, RecentWorkspaceInfo as RendererRecent, UpdateStatus as RendererUpdateStatus } from '../../renderer/src/lib/desktop-bridge.js';

/** True only when A and B are the same type (also for readonly members and method signatures). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export const sameApi: Equal<RendererApi, ShellApi> = true;
export const sameViews: Equal<DesktopView, WorkbenchView> = true;
export const sameMenuCommands: Equal<DesktopMenuCommand, MenuCommand> = true;
export const sameRecent: Equal<RendererRecent, ShellRecent> = true;
export const sameUpdateStatus: Equal<RendererUpdateStatus, ShellUpdateStatus> = true;

// The connection the /desktop/connections routes answer (their reply schema) is the Connection both sides import
// from hub-core/desktop-types.ts: the same members, the same required ones.
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type ConnectionReply = typeof connectionSchema;
export const sameConnectionMembers: Equal<keyof ConnectionReply['properties'], keyof Connection> = true;
export const sameConnectionRequired: Equal<ConnectionReply['required'][number], RequiredKeys<Connection>> = true;
