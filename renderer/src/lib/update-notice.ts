// What the update notice says for an update status from the desktop shell (lib/desktop-bridge.ts). No DOM and
// no Svelte here, so plain Node tests cover it (test/update-notice.test.ts); UpdateNotice.svelte shows it.
import type { UpdateStatus } from './desktop-bridge.js';

export type NoticeAction = 'download' | 'restart' | 'later' | 'stop-checking' | 'close';

export interface Notice {
  title: string;
  detail: string;
  /** Release notes as plain text (shown as text, never as HTML). */
  notes: string;
  /** 0–100 while downloading. */
  progress: number | null;
  actions: NoticeAction[];
  tone: 'info' | 'problem';
}

export const ACTION_LABELS: Record<NoticeAction, string> = {
  download: 'Download update',
  restart: 'Restart to update',
  later: 'Later',
  'stop-checking': 'Stop checking for updates',
  close: 'Close',
};

/** The notice for a status, or null when there is nothing to show; `laterFor` is the version put off with Later. */
export function updateNotice(status: UpdateStatus, appVersion: string, laterFor: string | null): Notice | null {
  switch (status.state) {
    case 'available':
      if (laterFor === status.version && !status.problem) return null;
      return {
        title: `Datahub Desktop ${status.version} is available`,
        detail: status.problem ?? `You have ${appVersion}. Nothing is downloaded until you choose to.`,
        notes: status.releaseNotes,
        progress: null,
        actions: ['download', 'later', 'stop-checking'],
        tone: status.problem ? 'problem' : 'info',
      };
    case 'downloading':
      return { title: `Downloading Datahub Desktop ${status.version}`, detail: `${status.percent}%`, notes: status.releaseNotes, progress: status.percent, actions: [], tone: 'info' };
    case 'ready':
      return {
        title: `Datahub Desktop ${status.version} is ready to install`,
        detail: 'Restart to update: the hub finishes its current work and stops first, and the app opens again on the new version.',
        notes: status.releaseNotes,
        progress: null,
        actions: ['restart', 'later'],
        tone: 'info',
      };
    case 'up-to-date':
      return { title: 'Datahub Desktop is up to date', detail: `You have the latest version, ${appVersion}.`, notes: '', progress: null, actions: ['close'], tone: 'info' };
    case 'failed':
      return { title: 'No update check', detail: status.message, notes: '', progress: null, actions: ['close'], tone: 'problem' };
    case 'checking':
      return status.askedByUser ? { title: 'Checking for updates…', detail: '', notes: '', progress: null, actions: [], tone: 'info' } : null;
    case 'idle':
    case 'unsupported':
      return null;
  }
}
