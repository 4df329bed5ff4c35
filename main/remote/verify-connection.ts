// Adding a connection: the token is checked against its portal (GET /api/profile) or instance (GET /api/status)
// before it is stored. Failures are PortalErrors (status, message, detail) that the routes answer as they are.
import type { Connection, ConnectionStore, NewConnection } from './connections.js';
import { PortalClient, PortalError, checkTransport, portalApiRoot } from './portal-client.js';

/** Checks an instance token with GET <api>/status. */
async function verifyInstance(apiRoot: string, token: string): Promise<void> {
  let res: Response;
  try {
    res = await fetch(`${apiRoot}/status`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(15_000), redirect: 'error' });
  } catch (e) {
    const err = e as Error;
    if (err.name === 'TimeoutError') throw new PortalError(504, 'the instance did not answer in time', apiRoot);
    throw new PortalError(502, 'the instance cannot be reached', `${new URL(apiRoot).host}: ${(err.cause as Error | undefined)?.message ?? err.message}`);
  }
  await res.body?.cancel();
  if (res.status === 401 || res.status === 403) throw new PortalError(403, 'the instance refused the token', 'check that the token belongs to this instance and has not expired');
  if (!res.ok) throw new PortalError(502, `the instance answered HTTP ${res.status} to GET /api/status`, 'is this the address of a data hub instance API?');
}

function apiRootOf(url: string): string {
  try {
    return portalApiRoot(url);
  } catch (e) {
    if (e instanceof PortalError) throw e;
    throw new PortalError(400, 'not a valid address', `${JSON.stringify(url)} is not a URL`);
  }
}

/** Check the transport and the token, then store (token in the keychain, the rest in connections.json). */
export async function addVerified(connections: ConnectionStore, input: NewConnection, allowInsecure?: boolean): Promise<Connection> {
  const url = apiRootOf(input.url);
  checkTransport(url, allowInsecure);
  if (input.kind === 'portal') await PortalClient.withToken(url, input.token).profile();
  else await verifyInstance(url, input.token);
  return connections.add({ ...input, url });
}
