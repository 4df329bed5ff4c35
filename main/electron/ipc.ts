// Typed wrappers over ipcMain for the channel map in channels.ts. Every request is checked against the
// page that sent it: only the hub's own origin, in the top frame, may talk to the main process.
import { ipcMain, type IpcMainEvent, type IpcMainInvokeEvent, type WebContents } from 'electron';
import type { EventChannels, InvokeChannels, SyncChannels } from './channels.js';

type SenderCheck = (frameUrl: string | undefined, isTopFrame: boolean) => boolean;

function senderOf(event: IpcMainEvent | IpcMainInvokeEvent): { url: string | undefined; top: boolean } {
  const frame = event.senderFrame;
  return { url: frame?.url, top: frame !== null && frame.parent === null };
}

export function handle<K extends keyof InvokeChannels>(
  channel: K,
  allowed: SenderCheck,
  handler: (request: unknown) => Promise<InvokeChannels[K]['response']>,
): void {
  ipcMain.handle(channel, async (event, request: unknown) => {
    const sender = senderOf(event);
    if (!allowed(sender.url, sender.top)) throw new Error(`${channel} is not available to ${sender.url ?? 'this page'}`);
    return handler(request);
  });
}

export function handleSync<K extends keyof SyncChannels>(channel: K, allowed: SenderCheck, answer: () => SyncChannels[K]['response']): void {
  ipcMain.on(channel, (event) => {
    const sender = senderOf(event);
    event.returnValue = allowed(sender.url, sender.top) ? answer() : null;
  });
}

export function send<K extends keyof EventChannels>(contents: WebContents, channel: K, payload: EventChannels[K]): void {
  if (!contents.isDestroyed()) contents.send(channel, payload);
}
