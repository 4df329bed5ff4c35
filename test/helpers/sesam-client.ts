// The calls the hosted service's command-line client (sesam-py's sesam.py, through the Python client sesamclient)
// makes, replayed in TypeScript against a real hub: the same endpoints, parameters and checks, in the same order.
// PyPI is out of reach on the test machines, so the real client cannot be installed; this is the next best thing.
// Each method names the client command or helper it stands for.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync, unzipSync, strToU8, strFromU8 } from 'fflate';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

export interface ClientPipe {
  _id: string;
  config: { original: JsonObject; effective: JsonObject & { source?: JsonObject; sink?: JsonObject } };
  runtime: JsonObject & { state?: string | null; 'is-valid-config'?: boolean; 'config-errors'?: Json };
}

export interface LogLine {
  timestamp: string;
  loglevel: string;
  logdata: string;
}

/** An HTTP error as sesamclient raises it: the status and the parsed JSON answer. */
export class ClientHttpError extends Error {
  constructor(
    readonly status: number,
    readonly parsedResponse: Json,
  ) {
    super(`HTTP ${status}: ${JSON.stringify(parsedResponse)}`);
  }
}

export interface VerifyReport {
  ran: number;
  failed: string[];
  missing: string[];
  /** Messages the client would print as errors. */
  errors: string[];
}

export interface RunOptions {
  requestMode?: 'sync' | 'async';
  extraZeroRuns?: number;
  maxRuns?: number;
  maxRunTime?: number;
  deleteInputDatasets?: boolean;
  resetPipesAndDeleteSinkDatasets?: boolean;
  checkInputPipes?: boolean;
  outputRunStatistics?: boolean;
  schedulerMode?: string;
}

export class SesamClient {
  constructor(
    /** The node URL as the client builds it: ends in /api. */
    readonly nodeUrl: string,
    readonly jwt: string,
  ) {}

  /** SesamNode.__init__: the subscription id is the first key of the token's `principals` object. */
  subscriptionId(): string | undefined {
    const payload = JSON.parse(Buffer.from(this.jwt.split('.')[1]!, 'base64url').toString('utf8')) as { principals?: unknown };
    const principals = payload.principals ?? {};
    // Python's `.keys()` on a list raises AttributeError: the client crashes on an array here.
    if (Array.isArray(principals) || typeof principals !== 'object' || principals === null) throw new TypeError("'list' object has no attribute 'keys'");
    return Object.keys(principals)[0];
  }

  async request(method: string, path: string, init: { params?: Record<string, string | number | boolean>; json?: unknown; body?: Uint8Array; contentType?: string; accept?: string } = {}): Promise<Response> {
    const url = new URL(this.nodeUrl + path);
    for (const [k, v] of Object.entries(init.params ?? {})) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { authorization: `bearer ${this.jwt}` };
    let body: RequestInit['body'] | undefined;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.body !== undefined) {
      headers['content-type'] = init.contentType ?? 'application/octet-stream';
      body = Buffer.from(init.body);
    }
    if (init.accept) headers['accept'] = init.accept;
    return fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
  }

  /** `resp.raise_for_status(); return resp.json()`. */
  async json<T = Json>(method: string, path: string, init: Parameters<SesamClient['request']>[2] = {}): Promise<T> {
    const res = await this.request(method, path, init);
    const text = await res.text();
    let parsed: Json = null;
    try {
      parsed = text === '' ? null : (JSON.parse(text) as Json);
    } catch {
      parsed = text;
    }
    if (!res.ok) throw new ClientHttpError(res.status, parsed);
    return parsed as T;
  }

  /** api_connection.get_api_info(): the main script checks status.developer_mode before most commands. */
  apiInfo(): Promise<JsonObject> {
    return this.json('GET', '/');
  }

  getPipes(): Promise<ClientPipe[]> {
    return this.json('GET', '/pipes');
  }

  static isUserPipe(p: ClientPipe): boolean {
    const md = p.config.original['metadata'];
    const origin = md && typeof md === 'object' && !Array.isArray(md) ? (md['origin'] ?? 'user') : 'user';
    return !['system', 'search', 'replica', 'aggregator-storage-node'].includes(String(origin)) && !p._id.includes(':singlenode');
  }

  /** SesamNode.get_pipe_type, from the effective configuration. */
  static pipeType(p: ClientPipe): 'input' | 'endpoint' | 'internal' | 'output' {
    const source = p.config.effective.source ?? {};
    const sink = p.config.effective.sink ?? {};
    if (source['type'] === 'embedded') return 'input';
    if (typeof sink['type'] === 'string' && sink['type'].endsWith('_endpoint')) return 'endpoint';
    if ((source['dataset'] || source['datasets']) && sink['dataset']) return 'internal';
    if (!sink['dataset']) return 'output';
    return 'internal';
  }

  /** SesamCmdClient.get_zip_config + the upload's node-metadata rewrite (disable_user_pipes unless -enable-user-pipes). */
  static zipProject(dir: string, options: { enableUserPipes?: boolean } = {}): Uint8Array {
    const files: Record<string, Uint8Array> = {};
    for (const folder of ['pipes', 'systems']) {
      if (!existsSync(join(dir, folder))) continue;
      for (const f of readdirSync(join(dir, folder)).sort()) if (f.endsWith('.conf.json')) files[`${folder}/${f}`] = readFileSync(join(dir, folder, f));
    }
    const mdFile = join(dir, 'node-metadata.conf.json');
    if (existsSync(mdFile)) {
      const md = JSON.parse(readFileSync(mdFile, 'utf8')) as JsonObject;
      const tm = (md['task_manager'] ?? {}) as JsonObject;
      tm['disable_user_pipes'] = options.enableUserPipes !== true;
      md['task_manager'] = tm;
      const gd = (md['global_defaults'] ?? {}) as JsonObject;
      gd['eager_load_microservices'] = false;
      md['global_defaults'] = gd;
      files['node-metadata.conf.json'] = strToU8(JSON.stringify(md));
    }
    return zipSync(files);
  }

  /** `sesam upload`: PUT /env from <profile>-env.json, PUT /config with the zip, wait while any pipe is deploying. */
  async upload(dir: string, options: { force?: boolean; enableUserPipes?: boolean } = {}): Promise<void> {
    const env = JSON.parse(readFileSync(join(dir, 'test-env.json'), 'utf8')) as JsonObject;
    await this.json('PUT', '/env', { json: env });
    await this.json('PUT', '/config', { params: { force: options.force === true }, body: SesamClient.zipProject(dir, options), contentType: 'application/zip' });
    await this.waitForAllPipesToDeploy();
  }

  async waitForAllPipesToDeploy(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const deploying = (await this.getPipes()).filter((p) => SesamClient.isUserPipe(p) && p.runtime.state === 'Deploying');
      if (deploying.length === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('pipes kept deploying');
  }

  /** `sesam status`: the node's config zip (Accept: application/zip) and env, the task_manager settings removed. */
  async status(dir: string): Promise<{ remoteFiles: string[]; localFiles: string[]; differing: string[]; envDiffers: boolean }> {
    const res = await this.request('GET', '/config', { accept: 'application/zip' });
    if (!res.ok) throw new ClientHttpError(res.status, await res.text());
    const remote = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const mdText = remote['node-metadata.conf.json'];
    if (mdText) {
      const md = JSON.parse(strFromU8(mdText)) as JsonObject;
      const localMd = existsSync(join(dir, 'node-metadata.conf.json')) ? (JSON.parse(readFileSync(join(dir, 'node-metadata.conf.json'), 'utf8')) as JsonObject) : {};
      const tm = md['task_manager'] as JsonObject | undefined;
      if (tm && tm['disable_user_pipes'] === true) {
        const localTm = (localMd['task_manager'] ?? {}) as JsonObject;
        if ('disable_user_pipes' in localTm) tm['disable_user_pipes'] = localTm['disable_user_pipes']!;
        else {
          delete tm['disable_user_pipes'];
          if (Object.keys(tm).length === 0) delete md['task_manager'];
        }
      }
      const gd = md['global_defaults'] as JsonObject | undefined;
      if (gd && gd['eager_load_microservices'] === false) {
        const localGd = (localMd['global_defaults'] ?? {}) as JsonObject;
        if ('eager_load_microservices' in localGd) gd['eager_load_microservices'] = localGd['eager_load_microservices']!;
        else {
          delete gd['eager_load_microservices'];
          if (Object.keys(gd).length === 0) delete md['global_defaults'];
        }
      }
      remote['node-metadata.conf.json'] = strToU8(JSON.stringify(md));
    }
    const local = unzipSync(SesamClient.zipProject(dir));
    // The local node-metadata is compared as it is on disk.
    if (existsSync(join(dir, 'node-metadata.conf.json'))) local['node-metadata.conf.json'] = readFileSync(join(dir, 'node-metadata.conf.json'));
    const differing: string[] = [];
    for (const name of Object.keys(local)) {
      const r = remote[name];
      if (r && JSON.stringify(canonical(JSON.parse(strFromU8(r)) as Json)) !== JSON.stringify(canonical(JSON.parse(strFromU8(local[name]!)) as Json))) differing.push(name);
    }
    const env = await this.json('GET', '/env');
    const localEnv = JSON.parse(readFileSync(join(dir, 'test-env.json'), 'utf8')) as Json;
    return {
      remoteFiles: Object.keys(remote).sort(),
      localFiles: Object.keys(local).sort(),
      differing,
      envDiffers: JSON.stringify(canonical(env)) !== JSON.stringify(canonical(localEnv)),
    };
  }

  /** SesamNode.run_internal_scheduler: only the parameters the client sends. */
  runInternalScheduler(o: RunOptions): Promise<JsonObject> {
    const params: Record<string, string | number | boolean> = {};
    if (o.extraZeroRuns !== undefined) params['extra_zero_runs'] = o.extraZeroRuns;
    if (o.maxRunTime !== undefined) params['max_run_time'] = o.maxRunTime;
    if (o.maxRuns !== undefined) params['max_runs'] = o.maxRuns;
    // Python's requests sends booleans as "False"/"True".
    if (o.deleteInputDatasets === false) params['delete_input_datasets'] = 'False';
    if (o.checkInputPipes === true) params['check_input_pipes'] = 'True';
    if (o.resetPipesAndDeleteSinkDatasets === false) params['reset_pipes_and_delete_sink_datasets'] = 'False';
    if (o.outputRunStatistics === true) params['output_run_statistics'] = 'True';
    if (o.schedulerMode !== undefined) params['scheduler_mode'] = o.schedulerMode;
    if (o.requestMode !== undefined) params['request_mode'] = o.requestMode;
    return this.json('POST', '/pipes/run-all-pipes', { params });
  }

  stopInternalScheduler(terminateTimeout = 30): Promise<JsonObject> {
    return this.json('POST', '/pipes/stop-run-all-pipes', { params: { terminate_timeout: terminateTimeout } });
  }

  schedulerLog(since?: string, token?: string): Promise<LogLine[]> {
    const params: Record<string, string> = {};
    if (since) params['since'] = since;
    if (token) params['token'] = token;
    return this.json('GET', '/pipes/get-run-all-pipes-log', { params });
  }

  schedulerStatus(token: string): Promise<JsonObject> {
    return this.json('GET', '/pipes/get-pipe-runner-status', { params: { token } });
  }

  /**
   * `sesam run` (execute_run_internal_scheduler): stop any scheduler, start one, in async mode poll its status until
   * it is no longer running, read the log as it grows. Resolves to the status, additional_info and the log lines.
   */
  async run(options: RunOptions = {}): Promise<{ status: 'finished' | 'failed'; result: Json; log: LogLine[] }> {
    await this.stopInternalScheduler();
    const requestMode = options.requestMode ?? 'sync';
    const first = await this.runInternalScheduler({ extraZeroRuns: 2, maxRuns: 100, maxRunTime: 15 * 60, ...options, requestMode });
    const log: LogLine[] = [];
    let since: string | undefined;
    const readLog = async (token?: string): Promise<void> => {
      const lines = await this.schedulerLog(since, token);
      log.push(...lines);
      if (lines.length > 0) since = lines[lines.length - 1]!.timestamp;
    };
    if (requestMode === 'sync') {
      await readLog();
      return { status: first['status'] === 'success' ? 'finished' : 'failed', result: first, log };
    }
    const token = first['token'];
    if (typeof token !== 'string') throw new Error("Response from scheduler with 'async' request_mode didn't contain a token!");
    for (;;) {
      await readLog(token);
      const status = await this.schedulerStatus(token);
      if (status['status'] === 'success' || status['status'] === 'failed' || status['status'] === 'not-running') {
        await readLog(token);
        return { status: status['status'] === 'success' ? 'finished' : 'failed', result: status, log };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** `sesam verify` (execute_verify with load_test_specs and filter_entity). */
  async verify(dir: string): Promise<VerifyReport> {
    const report: VerifyReport = { ran: 0, failed: [], missing: [], errors: [] };
    const outputPipes = new Map<string, ClientPipe>();
    for (const p of await this.getPipes()) {
      if (!SesamClient.isUserPipe(p)) continue;
      const type = SesamClient.pipeType(p);
      if (type !== 'output' && type !== 'endpoint') continue;
      if (p.runtime['is-valid-config'] !== true) report.errors.push(`The pipe '${p._id}' has invalid config, cannot verify pipe!`);
      else outputPipes.set(p._id, p);
    }
    const specs = new Map<string, { name: string; pipe: string; file: string; ignore: boolean; blacklist: string[]; stage?: string; ignoreDeletes: boolean; endpoint: string }[]>();
    const expectedDir = join(dir, 'expected');
    let specsFailed = false;
    for (const f of existsSync(expectedDir) ? readdirSync(expectedDir).sort() : []) {
      if (!f.endsWith('.test.json')) continue;
      const name = f.slice(0, -'.test.json'.length);
      const raw = JSON.parse(readFileSync(join(expectedDir, f), 'utf8')) as JsonObject;
      const spec = {
        name,
        pipe: typeof raw['pipe'] === 'string' ? raw['pipe'] : name,
        file: typeof raw['file'] === 'string' ? raw['file'] : `${name}.json`,
        ignore: raw['ignore'] === true,
        blacklist: Array.isArray(raw['blacklist']) ? raw['blacklist'].map(String) : [],
        ...(typeof raw['stage'] === 'string' ? { stage: raw['stage'] } : {}),
        ignoreDeletes: raw['ignore_deletes'] !== false,
        endpoint: typeof raw['endpoint'] === 'string' ? raw['endpoint'] : 'json',
      };
      if (!outputPipes.has(spec.pipe)) {
        report.errors.push(`Test spec 'expected/${f}' references a non-exisiting output pipe '${spec.pipe}'`);
        specsFailed = true;
      }
      if (!spec.ignore && !existsSync(join(expectedDir, spec.file))) {
        report.errors.push(`Test spec 'expected/${f}' references non-exisiting 'expected' output file '${spec.file}'`);
        specsFailed = true;
      }
      specs.set(spec.pipe, [...(specs.get(spec.pipe) ?? []), spec]);
    }
    if (specsFailed) throw new Error(`Test specs verify failed: ${report.errors.join('; ')}`);
    report.ran = specs.size;
    for (const pipe of outputPipes.values()) {
      const list = specs.get(pipe._id);
      if (!list) {
        report.missing.push(pipe._id);
        continue;
      }
      for (const spec of list) {
        if (spec.ignore) continue;
        if (spec.endpoint !== 'json') throw new Error(`the replay covers json test specs only (${spec.name})`);
        const expected = JSON.parse(readFileSync(join(expectedDir, spec.file), 'utf8')) as JsonObject[];
        const expectedDeletes = new Set(expected.filter((e) => e['_deleted'] === true).map((e) => e['_id']));
        const params: Record<string, string> = spec.stage !== undefined ? { stage: spec.stage } : {};
        const current = (await this.json<JsonObject[]>('GET', `/pipes/${encodeURIComponent(pipe._id)}/entities`, { params }))
          .map((e) => filterEntity(e, spec.blacklist))
          .filter((e) => !(spec.ignoreDeletes && e['_deleted'] === true && !expectedDeletes.has(e['_id']!)));
        if (JSON.stringify(sortEntities(expected)) !== JSON.stringify(sortEntities(current))) {
          report.failed.push(spec.name);
          report.errors.push(`Pipe verify failed! Content mismatch for test spec '${spec.file}': expected ${JSON.stringify(sortEntities(expected))}, got ${JSON.stringify(sortEntities(current))}`);
        }
      }
    }
    return report;
  }

  /** `sesam wipe`: stop, PUT /config [metadata with user pipes disabled] force, PUT /config [] force, PUT /env {}, wait for the pipes to go. */
  async wipe(dir: string): Promise<void> {
    await this.stopInternalScheduler();
    const md = existsSync(join(dir, 'node-metadata.conf.json')) ? (JSON.parse(readFileSync(join(dir, 'node-metadata.conf.json'), 'utf8')) as JsonObject) : { _id: 'node', type: 'metadata' };
    md['task_manager'] = { ...((md['task_manager'] ?? {}) as JsonObject), disable_user_pipes: true };
    md['global_defaults'] = { ...((md['global_defaults'] ?? {}) as JsonObject), use_signalling_internally: false, use_signalling_externally: false, enable_cpp_extensions: false };
    await this.json('PUT', '/config', { params: { force: 'True' }, json: [md] });
    await this.json('PUT', '/config', { params: { force: 'True' }, json: [] });
    await this.json('PUT', '/env', { json: {} });
    for (let i = 0; i < 100; i++) {
      if ((await this.getPipes()).filter(SesamClient.isUserPipe).length === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the pipes did not go');
  }
}

/** Python's fnmatch: "*" any run, "?" one character, "[...]" a class; the whole path must match. */
function fnmatch(text: string, pattern: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        const body = pattern.slice(i + 1, end);
        re += `[${body.startsWith('!') ? '^' + body.slice(1) : body}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 's').test(text);
}

/** SesamCmdClient.filter_entity: drop "_" keys but _id (and _deleted when true) and blacklisted paths. */
export function filterEntity(entity: JsonObject, blacklist: readonly string[]): JsonObject {
  const blacklisted = (path: string[]): boolean => {
    const p = path.join('.').replace(/\\\./g, '.');
    return blacklist.some((pattern) => fnmatch(p, pattern.replace(/\[\]\./g, '.*.')));
  };
  const item = (parent: string[], value: Json): Json => {
    if (Array.isArray(value)) return value.map((v) => item(parent, v));
    if (value !== null && typeof value === 'object') {
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(value)) {
        const path = [...parent, k];
        if (blacklisted(path)) continue;
        if (k.startsWith('_')) {
          if (k === '_id' || (k === '_deleted' && v === true)) out[k] = v;
          continue;
        }
        out[k] = item(path, v);
      }
      return out;
    }
    return value;
  };
  return item([], entity) as JsonObject;
}

function canonical(v: Json): Json {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === 'object') {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort()) out[k] = canonical(v[k]!);
    return out;
  }
  return v;
}

/** The entity_sorter_func with the default fields_to_sort_by ["_id"], on the canonical (sort_keys) form. */
function sortEntities(list: readonly JsonObject[]): Json[] {
  return list
    .map((e) => canonical(e) as JsonObject)
    .sort((a, b) => {
      const x = String(a['_id']);
      const y = String(b['_id']);
      if (x !== y) return x < y ? -1 : 1;
      const sa = JSON.stringify(a);
      const sb = JSON.stringify(b);
      return sa < sb ? -1 : sa > sb ? 1 : 0;
    });
}
