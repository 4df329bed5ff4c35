// Which hub the workbench views show: the local hub, or a remote instance reached through the host
// process (its token stays in the OS keychain; the renderer only ever sees the host's proxy path).
export interface InstanceTarget {
  /** null = the local hub; otherwise the id of a saved remote connection. */
  connection: string | null;
  label: string;
}

export const instance: InstanceTarget = $state({ connection: null, label: 'This computer' });

export function useInstance(connection: string | null, label: string): void {
  instance.connection = connection;
  instance.label = connection === null ? 'This computer' : label;
}

/** Base path of the instance API for the current target. */
export function apiBase(): string {
  return instance.connection === null ? '/api' : `/desktop/remote/${encodeURIComponent(instance.connection)}/api`;
}
