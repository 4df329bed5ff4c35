// The renderer talks to the hub over HTTP only. In a browser the session cookie set by /login
// authenticates; the Electron shell passes the same origin, so this file works unchanged there.
import { apiBase } from './instance.svelte';
import { desktopAuthorization } from './desktop-bridge';
import { parseExactJson } from './exact-json';

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

async function send(url: string, init: RequestInit): Promise<Response> {
  // Inside the desktop app the preload API hands over the hub's per-launch token.
  const authorization = desktopAuthorization();
  const headers = new Headers(init.headers);
  if (authorization && !headers.has('authorization')) headers.set('authorization', authorization);
  return fetch(url, { credentials: 'same-origin', ...init, headers });
}

async function request<T>(url: string, init: RequestInit): Promise<T> {
  return answer<T>(await send(url, init));
}

async function answer<T>(res: Response): Promise<T> {
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
  return (text === '' ? undefined : parseExactJson(text)) as T;
}

/** A call to the instance API of the hub the workbench currently shows (local or remote). */
export function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  return request<T>(`${apiBase()}${path}`, init);
}

/**
 * A GET of the instance API that a poll repeats: null when the answer is still the one tagged `etag` (the hub answered
 * 304 Not Modified: nothing to read or parse), else the answer and its tag. A hub that tags nothing always answers.
 */
export async function apiIfChanged<T>(path: string, etag: string | null): Promise<{ body: T; etag: string | null } | null> {
  // A request with If-None-Match bypasses the browser's cache: the 304 comes here as it is.
  const res = await send(`${apiBase()}${path}`, etag === null ? {} : { headers: { 'if-none-match': etag } });
  if (res.status === 304) return null;
  return { body: await answer<T>(res), etag: res.headers.get('etag') };
}

/** A call to the local hub's instance API, whatever instance is shown (workspace, test runner). */
export function localApi<T>(path: string, init: RequestInit = {}): Promise<T> {
  return request<T>(`/api${path}`, init);
}

/** A call to the desktop host's own routes (/desktop/...): connections, portal, remote sync. */
export function hostApi<T>(path: string, init: RequestInit = {}): Promise<T> {
  return request<T>(`/desktop${path}`, init);
}

/** JSON body helper: `api('/x', json('PUT', body))`. */
export function json(method: string, body: unknown): RequestInit {
  return { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
