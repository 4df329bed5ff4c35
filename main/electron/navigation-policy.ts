// Where a URL may go from inside the app window. Pure, so it is tested in plain Node.

/** 'inside': stays in the window; 'external': handed to the system browser; 'deny': dropped. */
export type NavigationVerdict = 'inside' | 'external' | 'deny';

export function classifyNavigation(target: string, hubOrigin: string | null): NavigationVerdict {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return 'deny';
  }
  if (hubOrigin !== null && url.origin === hubOrigin) return 'inside';
  // Only https pages without credentials in the URL go to the browser; file:, javascript:, custom
  // schemes and plain http could be used to run something or leak data.
  if (url.protocol === 'https:' && url.username === '' && url.password === '') return 'external';
  return 'deny';
}

/** The origin of a URL, or null when it has none (about:blank, data:, garbage). */
export function originOf(target: string): string | null {
  try {
    const origin = new URL(target).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * May the page at `senderUrl` talk to the main process? Only the top frame of the running hub's origin may. With no
 * hub running nothing may: a page without an origin (about:blank, data:) must not match a hub that has none.
 */
export function isHubSender(senderUrl: string | undefined, isTopFrame: boolean, hubOrigin: string | null): boolean {
  return isTopFrame && senderUrl !== undefined && isHubUrl(senderUrl, hubOrigin);
}

/** Is `url` on the running hub's origin? Never while no hub runs. */
export function isHubUrl(url: string, hubOrigin: string | null): boolean {
  return hubOrigin !== null && originOf(url) === hubOrigin;
}
