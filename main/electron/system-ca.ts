// The hub's outgoing TLS (portal and remote-instance clients, HTTP sources) should trust what the OS
// trusts: a company's own CA or TLS-inspecting proxy is installed in the OS store, not in Node's bundled
// Mozilla list. The packaged app cannot rely on NODE_EXTRA_CA_CERTS or NODE_OPTIONS=--use-system-ca:
// its nodeOptions fuse is off, so Electron ignores both. Instead the hub's process adds the OS store's
// certificates to its default CA list at start, where Node has the API (24.5 / 22.19 and later, which
// includes Electron's Node). Nothing is removed: the bundled CAs stay trusted.
import tls from 'node:tls';

export type SystemCaOutcome =
  | { status: 'added'; added: number; total: number }
  | { status: 'unsupported'; reason: string }
  | { status: 'failed'; reason: string };

interface CaApi {
  getCACertificates?: (type: 'default' | 'system' | 'bundled' | 'extra') => string[];
  setDefaultCACertificates?: (certs: string[]) => void;
}

export function trustSystemCertificates(): SystemCaOutcome {
  const api = tls as unknown as CaApi;
  if (typeof api.getCACertificates !== 'function' || typeof api.setDefaultCACertificates !== 'function') {
    return { status: 'unsupported', reason: `Node ${process.versions.node} cannot add CA certificates at run time (tls.setDefaultCACertificates)` };
  }
  try {
    const current = api.getCACertificates('default');
    const known = new Set(current);
    const added = api.getCACertificates('system').filter((cert) => !known.has(cert));
    if (added.length > 0) api.setDefaultCACertificates([...current, ...added]);
    return { status: 'added', added: added.length, total: current.length + added.length };
  } catch (e) {
    return { status: 'failed', reason: e instanceof Error ? e.message : String(e) };
  }
}
