// The window's security rules: a CSP header on every response of the hub's origin, no permissions but the clipboard
// and notifications, and navigation that never leaves the hub (https links open in the system browser, anything else is dropped).
import { shell, type Session, type WebContents } from 'electron';
import { classifyNavigation, isHubUrl, originOf } from './navigation-policy.js';
import { CONTENT_SECURITY_POLICY } from '../server/csp.js';

// The hub sends the same policy with its pages (main/server/csp.ts); setting it here as well covers every
// response the window loads from the hub, whatever route served it (the API reference included).
export const APP_CSP = CONTENT_SECURITY_POLICY;

export function secureSession(session: Session, hubOrigin: () => string | null): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    if (originOf(details.url) !== hubOrigin()) {
      callback({});
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(details.responseHeaders ?? {})) {
      if (name.toLowerCase() !== 'content-security-policy') headers[name] = value;
    }
    headers['Content-Security-Policy'] = [APP_CSP];
    callback({ responseHeaders: headers });
  });
  // Camera, geolocation, ...: the workbench needs none. Writing to the clipboard (the editor's copy) and showing a
  // desktop notification for a new alert (lib/alert-notifier.ts) are what the hub's own page may do.
  const allowed = (permission: string): boolean => permission === 'clipboard-sanitized-write' || permission === 'notifications';
  session.setPermissionRequestHandler((contents, permission, callback, details) => {
    callback(allowed(permission) && isHubUrl(details.requestingUrl ?? contents.getURL(), hubOrigin()));
  });
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin) => {
    return allowed(permission) && isHubUrl(requestingOrigin, hubOrigin());
  });
}

export function guardNavigation(contents: WebContents, hubOrigin: () => string | null): void {
  const decide = (url: string): boolean => {
    const verdict = classifyNavigation(url, hubOrigin());
    if (verdict === 'external') void shell.openExternal(url);
    return verdict === 'inside';
  };
  contents.on('will-navigate', (event) => {
    if (!decide(event.url)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (classifyNavigation(event.url, hubOrigin()) !== 'inside') event.preventDefault();
  });
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame && classifyNavigation(event.url, hubOrigin()) !== 'inside') event.preventDefault();
  });
  contents.setWindowOpenHandler(({ url }) => {
    // New windows are never opened: hub links stay in the one window, https links go to the browser.
    if (classifyNavigation(url, hubOrigin()) === 'external') void shell.openExternal(url);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}
