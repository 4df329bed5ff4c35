// The renderer talks to the hub over HTTP only. In a browser the session cookie set by /login
// authenticates; the Electron shell passes the same origin, so this file works unchanged there.

export interface ApiError {
  status: number;
  error: string;
  detail: string | null;
}

export class HubRequestError extends Error {
  constructor(readonly info: ApiError) {
    super(info.detail ? `${info.error}: ${info.detail}` : info.error);
  }
}

export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`/api${path}`, { credentials: 'same-origin', ...init });
  const text = await res.text();
  if (!res.ok) {
    let body: { error?: string; detail?: string | null } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = { error: text || res.statusText };
    }
    throw new HubRequestError({ status: res.status, error: body.error ?? res.statusText, detail: body.detail ?? null });
  }
  return (text === '' ? undefined : JSON.parse(text)) as T;
}
