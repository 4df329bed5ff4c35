// The Content-Security-Policy of the workbench's pages: one policy, sent by the hub with every page
// (main/server/ui.ts) and set again by the desktop shell on every response of the hub's origin
// (main/electron/security.ts). Scripts and connections only from the hub itself; Monaco needs blob: workers
// and inline styles; no plugins, no <base> tricks, no framing, forms post only to the hub.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');
