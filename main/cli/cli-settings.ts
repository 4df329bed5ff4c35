// Defaults of the command line that its usage texts name: kept apart from the commands, so that `datahub --help`
// and a usage error load none of the hub.
import { homedir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_PORT = 9042;

export function defaultDataDir(): string {
  return process.env['DATAHUB_DATA'] ?? join(homedir(), '.datahub-desktop', 'data');
}

/** `datahub sample pull`: the instance API token when --from is an address, and how many entities by default. */
export const TOKEN_ENV = 'DATAHUB_REMOTE_TOKEN';
export const SAMPLE_DEFAULT_COUNT = 10;
