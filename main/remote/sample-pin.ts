// Pinning a pulled sample into a project folder, shared by `datahub sample pull` and the workbench's "Pull sample…"
// (POST /desktop/workspace/sample): find the pipe and its real source, read the sample from the remote instance,
// scrub it, then write the pipe's file (its layout kept) and, when needed, test-env.json's "node-env": "test".
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfigFiles, type ConfigEntity } from '../../hub-core/config/index.js';
import { effectivePipeConfig } from '../../hub-core/pipes/index.js';
import { realSource, sampleFileText, testEnvWithNodeEnv, Scrubber } from '../../hub-core/project/index.js';
import { HubError, type JsonObject } from '../../hub-core/base/index.js';
import { InstanceClient } from './config-sync.js';
import { pullSample, type Sample } from './sample-pull.js';
import { SCRUB_KEY_ENV } from './sample-env.js';

export { SCRUB_KEY_ENV };

/** The key of the fake values: from the environment, else a file of the data folder made on first use. */
export function scrubKey(dataDir: string): Buffer {
  const fromEnv = process.env[SCRUB_KEY_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return Buffer.from(fromEnv, 'utf8');
  const file = join(dataDir, 'sample-scrub-key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
}

export interface SampleTarget {
  pipe: string;
  /** The pipe's file, relative to the node folder. */
  file: string;
  /** Its real source, effective (`type` set): the alternative that is not "test", or the source itself. */
  source: JsonObject;
}

/** The pipe to sample, or a 404 naming the pipes there are; a 400 when its real source is not clear. */
export function sampleTarget(nodeDir: string, pipe: string): SampleTarget {
  const { entities, problems } = readConfigFiles(nodeDir);
  const found = entities.find((e) => e.entity._id === pipe && e.entity.type === 'pipe');
  if (found === undefined) {
    const bad = problems.map((p) => `${p.file}: ${p.msg}`).join('; ');
    const pipes = entities.filter((e) => e.entity.type === 'pipe').map((e) => e.entity._id);
    throw new HubError(
      404,
      `no pipe ${JSON.stringify(pipe)} in ${nodeDir}`,
      `its pipes: ${pipes.slice(0, 20).join(', ') || 'none'}${pipes.length > 20 ? ', …' : ''}${bad ? `; unreadable: ${bad}` : ''}`,
    );
  }
  const source = realSource(found.entity);
  const effective = effectivePipeConfig({ ...found.entity, source } as ConfigEntity).source as JsonObject;
  return { pipe, file: found.file, source: effective };
}

export interface PinOptions {
  count: number;
  /** A DTL predicate as JSON text. */
  filter: string | undefined;
  patterns: string[];
  /** The scrub key (unused when there are no patterns). */
  key: Buffer;
}

export interface Pinned {
  sample: Sample;
  /** The entities written (scrubbed). */
  entities: JsonObject[];
  /** Properties replaced by fakes. */
  scrubbed: number;
  /** What was done to test-env.json, if anything. */
  envNote: string | undefined;
}

/** Read the sample from the instance; none matching is a 422 and nothing is written. */
export async function readSample(client: InstanceClient, label: string, target: SampleTarget, options: PinOptions): Promise<Sample> {
  const sample = await pullSample(client, label, { pipe: target.pipe, source: target.source, count: options.count, filter: options.filter });
  if (sample.entities.length === 0) {
    throw new HubError(422, `${sample.from} on ${label} gave no entities${options.filter !== undefined ? ` matching the filter (of ${sample.read} read)` : ''}`, 'nothing was written');
  }
  return sample;
}

/** Scrub the sample, then write it as the pipe's test alternative (and node-env into test-env.json when missing). */
export function writeSample(nodeDir: string, target: SampleTarget, sample: Sample, options: PinOptions): Pinned {
  // Scrubbed before anything is written.
  const scrubber = new Scrubber(options.patterns, options.key);
  const entities = scrubber.scrub(sample.entities);
  const path = join(nodeDir, target.file);
  writeFileSync(path, sampleFileText(readFileSync(path, 'utf8'), target.pipe, entities));
  const envFile = join(nodeDir, 'test-env.json');
  const env = testEnvWithNodeEnv(existsSync(envFile) ? readFileSync(envFile, 'utf8') : undefined);
  if (env !== undefined) writeFileSync(envFile, env.text);
  return { sample, entities, scrubbed: scrubber.count, envNote: env?.note };
}
