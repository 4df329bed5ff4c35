// OS notifications for new alerts of this hub's notification rules (GET /alerts; hub-core/config/notification-rules.ts). The
// hub is polled while the app runs; an alert not seen before (a rule raising a new alert, not the same alert counting
// up) shows one notification, once the user has allowed them (a button on a pipe's Alerts section asks: browsers and
// Electron only ask on a click). What was seen is remembered, so a restart does not notify again, while an alert
// raised while the app was closed is notified once it starts.
import type { LocalAlert } from '../../../hub-core/config/index';
import { api } from './api';

interface PipeAlerts {
  alerts: LocalAlert[];
}

const SEEN_KEY = 'datahub.alerts-notified';
const SEEN_MAX = 500;

export function alertKey(a: LocalAlert): string {
  return `${a.pipe_id}\u0000${a.notification_rule_id}\u0000${a.event_timestamp}`;
}

/** The alerts in `lists` not in `seen`, oldest first. */
export function unseenAlerts(seen: ReadonlySet<string>, lists: readonly PipeAlerts[]): LocalAlert[] {
  const out = lists.flatMap((l) => l.alerts).filter((a) => !seen.has(alertKey(a)));
  return out.sort((a, b) => a.event_timestamp.localeCompare(b.event_timestamp));
}

export function notificationsSupported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

/** 'granted', 'denied', 'default' (not asked yet) or 'unsupported'. */
export function notificationPermission(): NotificationPermission | 'unsupported' {
  return notificationsSupported() ? Notification.permission : 'unsupported';
}

/** Ask for permission (call from a click). */
export async function askForNotifications(): Promise<NotificationPermission | 'unsupported'> {
  if (!notificationsSupported()) return 'unsupported';
  return Notification.requestPermission();
}

function readSeen(): Set<string> | null {
  try {
    const raw = localStorage.getItem(SEEN_KEY);
    return raw === null ? null : new Set(JSON.parse(raw) as string[]);
  } catch {
    return null;
  }
}

function writeSeen(seen: Set<string>): void {
  try {
    localStorage.setItem(SEEN_KEY, JSON.stringify([...seen].slice(-SEEN_MAX)));
  } catch {
    // Storage full or off: the next start may notify an alert again, nothing worse.
  }
}

/**
 * Poll this hub's alerts and show an OS notification for each new one. `local()` says the workbench shows this hub
 * (a remote instance's alerts belong to its portal). Returns the stop function.
 */
export function startAlertNotifier(local: () => boolean, intervalMs = 5_000): () => void {
  let seen = readSeen();
  let stopped = false;
  const poll = async (): Promise<void> => {
    if (stopped || !local()) return;
    let lists: PipeAlerts[];
    try {
      lists = await api<PipeAlerts[]>('/alerts');
    } catch {
      return;
    }
    if (seen === null) {
      // The first start on this machine: what is there already is not news.
      seen = new Set(lists.flatMap((l) => l.alerts.map(alertKey)));
      writeSeen(seen);
      return;
    }
    const fresh = unseenAlerts(seen, lists);
    if (fresh.length === 0) return;
    for (const a of fresh) seen.add(alertKey(a));
    writeSeen(seen);
    if (notificationPermission() !== 'granted') return;
    for (const a of fresh) {
      const n = new Notification(`Alert on pipe ${a.pipe_id}`, { body: `${a.notification_rule_name}: ${a.msg}`, tag: alertKey(a) });
      n.onclick = () => {
        window.focus();
        location.hash = `#/pipes/${encodeURIComponent(a.pipe_id)}`;
      };
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), intervalMs);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
