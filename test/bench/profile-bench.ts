// Profile of the bench dataset (GET /datasets/bench/profile) on the hub under test: a full pass, then the same
// profile brought up to date after a small write (incremental). The raw baseline, measured in this process on the
// same entities, is what any pass must at least do: JSON.parse of every entity text.
import { performance } from 'node:perf_hooks';

export interface ProfileBenchResult {
  entities: number;
  fullSeconds: number;
  fullRate: number;
  /** Raw JSON.parse rate of the same entity texts in this process. */
  baselineRate: number;
  ratio: number;
  incrementalSeconds: number;
  incrementalWritten: number;
  /** Hub RSS growth during the full profile (peak minus just before), MB; filled in by the caller from its samples. */
  rssGrowthMB: number;
  rssPeakMB: number;
  wall: [number, number];
  problems: string[];
}

interface ProfileReply {
  entities: number;
  computed: string;
  properties: { path: string; count: number }[];
}

export function parseBaseline(texts: readonly string[]): number {
  const t0 = performance.now();
  let n = 0;
  for (const s of texts) if ((JSON.parse(s) as object) !== null) n++;
  return n / ((performance.now() - t0) / 1000);
}

export async function runProfileBench(
  get: <T>(path: string) => Promise<T>,
  post: (path: string, body: string) => Promise<unknown>,
  texts: readonly string[],
): Promise<ProfileBenchResult> {
  const problems: string[] = [];
  const count = texts.length;
  const baselineRate = parseBaseline(texts);
  const wall0 = Date.now();
  const t0 = performance.now();
  const full = await get<ProfileReply>('/datasets/bench/profile');
  const fullSeconds = (performance.now() - t0) / 1000;
  const wall1 = Date.now();
  if (full.entities !== count) problems.push(`profile: ${full.entities} entities, expected ${count}`);
  if (full.computed !== 'full') problems.push(`profile: computed "${full.computed}", expected a full pass`);
  const name = full.properties.find((p) => p.path === 'name');
  if (!name || name.count !== count) problems.push(`profile: property "name" counted ${name?.count} times, expected ${count}`);
  // A thousand new entities, then the profile again: only they are read.
  const extra = Array.from({ length: 1000 }, (_, i) => ({ _id: `profile-extra-${i}`, name: 'Extra', age: 30, city: 'Oslo', tags: ['new'], active: true }));
  await post('/datasets/bench/entities', JSON.stringify(extra));
  const t1 = performance.now();
  const again = await get<ProfileReply>('/datasets/bench/profile');
  const incrementalSeconds = (performance.now() - t1) / 1000;
  if (again.entities !== count + extra.length) problems.push(`profile after 1,000 writes: ${again.entities} entities, expected ${count + extra.length}`);
  if (again.computed !== 'incremental') problems.push(`profile after 1,000 writes: computed "${again.computed}", expected "incremental"`);
  return {
    entities: count,
    fullSeconds,
    fullRate: count / fullSeconds,
    baselineRate,
    ratio: count / fullSeconds / baselineRate,
    incrementalSeconds,
    incrementalWritten: extra.length,
    rssGrowthMB: 0,
    rssPeakMB: 0,
    wall: [wall0, wall1],
    problems,
  };
}
