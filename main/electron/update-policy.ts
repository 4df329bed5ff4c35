// When and how the app looks for updates, and what the window is told: everything about updates that needs no
// Electron, so plain Node tests cover it (test/main/electron/update-policy.test.ts). updates.ts wires it to electron-updater.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { UpdateStatus } from './channels.js';

export const CHECK_INTERVAL_MS = 12 * 60 * 60 * 1000;
/** How often the timer asks whether a check is due: a laptop that slept past the 12 hours checks soon after waking. */
export const CHECK_TICK_MS = 15 * 60 * 1000;

export interface Installation {
  isPackaged: boolean;
  platform: NodeJS.Platform;
  /** process.env.APPIMAGE: set by the AppImage runtime to the .AppImage file being run. */
  appImage: string | undefined;
}

/** Why this installation never checks, or null when it may (and does unless the user turned checks off). */
export function updatesUnsupported(install: Installation): Extract<UpdateStatus, { state: 'unsupported' }> | null {
  if (!install.isPackaged) return { state: 'unsupported', reason: 'development', message: 'A development tree does not update itself; pull and rebuild instead.' };
  if (install.platform === 'linux' && !install.appImage) {
    return {
      state: 'unsupported',
      reason: 'package-manager',
      message: 'This copy was installed from a package (.deb): update it with your package manager (apt), or use the AppImage, which updates itself.',
    };
  }
  return null;
}

export function isCheckDue(lastCheck: number | undefined, now: number, interval = CHECK_INTERVAL_MS): boolean {
  return lastCheck === undefined || now - lastCheck >= interval || now < lastCheck;
}

// Chromium's net errors (electron-updater fetches with Electron's net module) and Node's socket errors.
const OFFLINE = [
  /net::ERR_(INTERNET_DISCONNECTED|NAME_NOT_RESOLVED|NAME_RESOLUTION_FAILED|NETWORK_CHANGED|NETWORK_IO_SUSPENDED|CONNECTION_\w+|ADDRESS_UNREACHABLE|TIMED_OUT|PROXY_CONNECTION_FAILED|TUNNEL_CONNECTION_FAILED|NETWORK_ACCESS_DENIED)/,
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b/,
];

export function isOffline(error: unknown): boolean {
  const text = error instanceof Error ? `${error.message} ${(error as NodeJS.ErrnoException).code ?? ''}` : String(error);
  return OFFLINE.some((pattern) => pattern.test(text));
}

/**
 * What to show when a check failed: nothing for a scheduled check (it tries again later), nothing offline,
 * one sentence for a check the user asked for.
 */
export function checkFailureMessage(error: unknown, askedByUser: boolean): string | null {
  if (!askedByUser) return null;
  if (isOffline(error)) return 'No connection to the update server; try again when you are online.';
  const message = error instanceof Error ? error.message : String(error);
  if (/\b404\b|No published versions/i.test(message)) return 'No released version was found on the update server.';
  return `The update check failed: ${message.split('\n')[0]}`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Release notes as plain text: GitHub's feed gives HTML, which the window shows as text, never as markup. */
export function releaseNotesText(notes: string | ReadonlyArray<{ version: string; note: string | null }> | null | undefined): string {
  if (notes == null) return '';
  if (typeof notes !== 'string') return notes.map((n) => `${n.version}\n${releaseNotesText(n.note)}`).join('\n\n').trim();
  return notes
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li[^>]*>/gi, '\n• ')
    .replace(/<\/?(p|div|h[1-6]|ul|ol|pre|blockquote)\b[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The events of electron-updater, and the user's actions, that move the status on. */
export type UpdateEvent =
  | { type: 'checking'; askedByUser: boolean }
  | { type: 'available'; version: string; releaseNotes: string; releaseDate?: string }
  | { type: 'not-available'; askedByUser: boolean }
  | { type: 'progress'; percent: number }
  | { type: 'downloaded'; version: string }
  | { type: 'error'; error: unknown; askedByUser: boolean; duringDownload: boolean }
  | { type: 'dismissed' };

export function nextStatus(status: UpdateStatus, event: UpdateEvent): UpdateStatus {
  if (status.state === 'unsupported') return status;
  switch (event.type) {
    case 'checking':
      // A found or downloaded update stays on screen while a scheduled check runs; a check the user asks for
      // starts over from a found one (the answer shows it again, even if it was put off with Later).
      return status.state === 'idle' || status.state === 'up-to-date' || status.state === 'failed' || (status.state === 'available' && event.askedByUser)
        ? { state: 'checking', askedByUser: event.askedByUser }
        : status;
    case 'available':
      if (status.state === 'ready' && status.version === event.version) return status;
      if (status.state === 'downloading' && status.version === event.version) return status;
      return { state: 'available', version: event.version, releaseNotes: event.releaseNotes, ...(event.releaseDate ? { releaseDate: event.releaseDate } : {}) };
    case 'not-available':
      return status.state === 'checking' && status.askedByUser ? { state: 'up-to-date' } : status.state === 'checking' ? { state: 'idle' } : status;
    case 'progress':
      return status.state === 'downloading' || status.state === 'available'
        ? { state: 'downloading', version: status.version, releaseNotes: status.releaseNotes, percent: Math.max(0, Math.min(100, Math.round(event.percent))) }
        : status;
    case 'downloaded': {
      const notes = status.state === 'available' || status.state === 'downloading' ? status.releaseNotes : '';
      return { state: 'ready', version: event.version, releaseNotes: notes };
    }
    case 'error': {
      if (event.duringDownload && (status.state === 'downloading' || status.state === 'available')) {
        return { state: 'available', version: status.version, releaseNotes: status.releaseNotes, problem: isOffline(event.error) ? 'The download stopped: no connection. Try again when you are online.' : `The download failed: ${event.error instanceof Error ? event.error.message.split('\n')[0] : String(event.error)}` };
      }
      const message = checkFailureMessage(event.error, event.askedByUser);
      if (status.state !== 'checking') return status;
      return message ? { state: 'failed', message } : { state: 'idle' };
    }
    case 'dismissed':
      return status.state === 'up-to-date' || status.state === 'failed' ? { state: 'idle' } : status;
  }
}

export interface UpdateSettings {
  /** Look for updates at start and every 12 hours. */
  checkAutomatically: boolean;
}

const DEFAULT_SETTINGS: UpdateSettings = { checkAutomatically: true };

/** The update settings in the app's userData folder; a missing or damaged file means the defaults. */
export function loadUpdateSettings(file: string): UpdateSettings {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const value = parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>)['checkAutomatically'] : undefined;
    return { checkAutomatically: typeof value === 'boolean' ? value : DEFAULT_SETTINGS.checkAutomatically };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function saveUpdateSettings(file: string, settings: UpdateSettings): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.tmp`;
  writeFileSync(temp, JSON.stringify(settings, null, 2) + '\n');
  renameSync(temp, file);
}
