// `datahub sample pull <pipe> --from <instance>`: pin a sample of a pipe's real input, read from a remote instance,
// as the pipe's conditional source's "test" alternative, scrubbed before anything is written.
// Exit codes: 0 written, 1 the instance could not be read, 2 usage, project or connection problems.

import { parseArgs } from 'node:util';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { workspaceNodeDir } from '../../hub-core/project/index.js';
import { parseScrubPatterns } from '../../hub-core/project/index.js';
import { HubError } from '../../hub-core/base/index.js';
import { ConnectionStore } from '../remote/connections.js';
import { InstanceClient } from '../remote/config-sync.js';
import { checkTransport, portalApiRoot } from '../remote/portal-client.js';
import { readSample, sampleTarget, scrubKey, SCRUB_KEY_ENV, writeSample } from '../remote/sample-pin.js';
import { OsKeychain } from '../secrets/keychain.js';
import { defaultDataDir, SAMPLE_DEFAULT_COUNT as DEFAULT_COUNT, TOKEN_ENV } from './cli-settings.js';

export { TOKEN_ENV };
export { SCRUB_KEY_ENV };
const MAX_COUNT = 10_000;


class UsageProblem extends Error {}

interface Remote {
  apiRoot: string;
  token: string;
  label: string;
}

/** The instance `--from` names: an address (token from the environment) or a saved connection (token from the keychain). */
async function resolveRemote(from: string, dataDir: string): Promise<Remote> {
  if (/^https?:\/\//i.test(from)) {
    const token = process.env[TOKEN_ENV];
    if (token === undefined || token.trim() === '') throw new UsageProblem(`--from ${from} needs the instance's token in $${TOKEN_ENV}`);
    let apiRoot: string;
    try {
      apiRoot = portalApiRoot(from);
      checkTransport(apiRoot, false);
    } catch (e) {
      throw new UsageProblem(`--from ${from}: ${e instanceof Error ? e.message : String(e)}`);
    }
    return { apiRoot, token: token.trim(), label: new URL(apiRoot).host };
  }
  const store = new ConnectionStore(dataDir, new OsKeychain());
  const instances = store.list().filter((c) => c.kind === 'instance');
  const found = instances.find((c) => c.id === from) ?? instances.find((c) => c.label === from) ?? instances.find((c) => c.label.toLowerCase() === from.toLowerCase());
  if (found === undefined) {
    const known = instances.map((c) => JSON.stringify(c.label)).join(', ') || 'none';
    throw new UsageProblem(`no remote instance connection ${JSON.stringify(from)} in ${dataDir} (its instances: ${known}); give an instance API address with its token in $${TOKEN_ENV} instead`);
  }
  let token: string | null;
  try {
    token = await store.token(found.id);
  } catch (e) {
    throw new UsageProblem(`the token of ${found.label} cannot be read (${e instanceof Error ? e.message : String(e)}); give --from ${found.url} with the token in $${TOKEN_ENV} instead`);
  }
  if (token === null) throw new UsageProblem(`the keychain holds no token for ${found.label}; store it again in the app, or give --from ${found.url} with the token in $${TOKEN_ENV}`);
  return { apiRoot: found.url, token, label: found.label };
}

export async function sampleCommand(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  try {
    if (action !== 'pull') throw new UsageProblem(action === undefined ? 'say what to do: datahub sample pull <pipe> --from <instance>' : `unknown action ${JSON.stringify(action)} (only "pull")`);
    const { values, positionals } = parseArgs({
      args: rest,
      options: { from: { type: 'string' }, count: { type: 'string' }, filter: { type: 'string' }, scrub: { type: 'string' }, data: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    const [pipe, project, ...extra] = positionals;
    if (pipe === undefined || pipe.trim() === '') throw new UsageProblem('name the pipe to sample');
    if (extra.length > 0) throw new UsageProblem('give one pipe and at most one project folder');
    if (values.from === undefined || values.from.trim() === '') throw new UsageProblem('--from is required: the remote instance to read from');
    const count = values.count === undefined ? DEFAULT_COUNT : /^\d{1,5}$/.test(values.count) ? Number(values.count) : NaN;
    if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) throw new UsageProblem(`--count must be a whole number from 1 to ${MAX_COUNT}`);
    if (values.filter === '') throw new UsageProblem('--filter needs a DTL predicate');
    const patterns = values.scrub === undefined ? [] : parseScrubPatterns(values.scrub);
    if (values.scrub !== undefined && patterns.length === 0) throw new UsageProblem('--scrub needs at least one pattern, such as "*email*"');
    const dir = resolve(project ?? '.');
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageProblem(`${dir} is not a project folder`);
    const nodeDir = workspaceNodeDir(dir);
    const dataDir = resolve(values.data ?? defaultDataDir());
    const target = sampleTarget(nodeDir, pipe);
    const remote = await resolveRemote(values.from.trim(), dataDir);
    const options = { count, filter: values.filter, patterns, key: patterns.length > 0 ? scrubKey(dataDir) : Buffer.alloc(0) };

    let sample;
    try {
      sample = await readSample(new InstanceClient(remote.apiRoot, remote.token), remote.label, target, options);
    } catch (e) {
      if (e instanceof HubError && e.status === 400) throw e;
      process.stderr.write(`datahub sample: ${e instanceof Error ? e.message : String(e)}${e instanceof HubError && e.detail ? `: ${e.detail}` : ''}\n`);
      return 1;
    }
    const pinned = writeSample(nodeDir, target, sample, options);
    const n = pinned.entities.length;
    process.stdout.write(
      `Pinned ${n} entit${n === 1 ? 'y' : 'ies'} of ${sample.from} on ${remote.label} as the test alternative of pipe ${pipe} (${target.file})` +
        `${patterns.length > 0 ? `; scrubbed ${pinned.scrubbed} propert${pinned.scrubbed === 1 ? 'y' : 'ies'} matching ${patterns.join(', ')}` : ''}\n`,
    );
    if (pinned.envNote !== undefined) process.stdout.write(`${pinned.envNote[0]!.toUpperCase()}${pinned.envNote.slice(1)}, so tests pick the sample\n`);
    return 0;
  } catch (e) {
    const usage = e instanceof UsageProblem || (e as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS') === true;
    const detail = e instanceof HubError && e.detail ? `: ${e.detail}` : '';
    process.stderr.write(`datahub sample: ${e instanceof Error ? e.message : String(e)}${detail}${usage ? ' (run "datahub sample --help" for usage)' : ''}\n`);
    return 2;
  }
}
