// Open portal alerts per pipe for a saved connection: an instance opened from a portal subscription, or
// a portal itself. The host reads the portal's notification summary (JSON Pull) with the token it keeps.
import { hostApi } from './api';

export async function remoteAlerts(connection: string): Promise<Map<string, number>> {
  const answer = await hostApi<{ pipes: Record<string, number> }>(`/portal-alerts/${encodeURIComponent(connection)}`);
  return new Map(Object.entries(answer.pipes).filter(([, count]) => count > 0));
}
