// Open portal alerts per pipe for a saved connection: an instance linked to a portal subscription, or a portal
// itself. The host reads the portal's notification summary incrementally (JSON Pull, keeping `since`), so the
// badges can be refreshed often without reading the whole summary each time.
import { hostApi } from './api';
import type { PortalAlerts } from '../../../hub-core/base/index';

/** How often badges are refreshed while a remote instance's pipes are on screen. */
export const ALERTS_REFRESH_MS = 10_000;

export async function remoteAlerts(connection: string): Promise<Map<string, number>> {
  const answer = await hostApi<PortalAlerts>(`/portal-alerts/${encodeURIComponent(connection)}`);
  return new Map(Object.entries(answer.pipes).filter(([, count]) => count > 0));
}

/**
 * Reads the alerts now, then every ALERTS_REFRESH_MS and whenever the window regains focus, until the returned
 * function is called. A failed read shows no badges rather than stale ones.
 */
export function watchRemoteAlerts(connection: string, onAlerts: (alerts: Map<string, number>) => void): () => void {
  let stopped = false;
  let reading = false;
  const read = (): void => {
    if (reading || stopped) return;
    reading = true;
    remoteAlerts(connection)
      .then(
        (a) => !stopped && onAlerts(a),
        () => !stopped && onAlerts(new Map()),
      )
      .finally(() => (reading = false));
  };
  read();
  const timer = setInterval(read, ALERTS_REFRESH_MS);
  window.addEventListener('focus', read);
  return () => {
    stopped = true;
    clearInterval(timer);
    window.removeEventListener('focus', read);
  };
}
