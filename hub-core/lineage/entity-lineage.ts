// Lineage of one stored entity version across pipes (issue 36). Upstream: the pipes that wrote it, the source entity
// each read (its offset, a merge's members), what their hops joined, an emit_children parent and where every property
// came from, step by step back. Downstream: the entities (and outbox records) pipes made from it. What a pump run
// recorded (lineage-store.ts) says which source entity made which output; the pipe's traced transform (lineage-trace.ts)
// says how. Bounded by depth, fan-in and fan-out; the answer says where it was cut.

import type { Hub } from '../hub.js';
import type { EffectivePipe } from '../pipes/index.js';
import { pipeDependencies } from '../pipes/index.js';
import { trackedDatasets } from '../pipes/index.js';
import { lookupKeys, traverseLookupPath } from '../dtl/index.js';
import type { JsonObject } from '../base/index.js';
import { notFound } from '../base/index.js';
import type { LineageRow } from '../pipes/index.js';
import type { DownstreamStep, EntityRef, LineageAnswer, LineageStep, ProcessedReason, PropertyOrigin } from './lineage-types.js';
import { traceStep } from './lineage-trace.js';
import type { PipeRuntime } from '../pipes/index.js';

export const LINEAGE_MAX_DEPTH = 10;
export const LINEAGE_DEFAULT_DEPTH = 5;
/** Pipes (upstream: writers and members of a merge; downstream: outputs per entity) followed from one entity. */
const FAN = 20;
/** Source entities read to find a non-dataset source's entity by id. */
const SOURCE_SCAN = 10_000;

export interface LineageRequest {
  dataset: string;
  entity: string;
  direction: 'up' | 'down';
  depth?: number;
}

export async function entityLineage(hub: Hub, request: LineageRequest): Promise<LineageAnswer> {
  const ds = hub.datasets.get(request.dataset);
  if (!ds) throw notFound(`dataset ${JSON.stringify(request.dataset)} not found`);
  const stored = ds.get(request.entity);
  if (!stored) throw notFound(`entity ${JSON.stringify(request.entity)} not found in dataset ${JSON.stringify(request.dataset)}`);
  const depth = request.depth ?? LINEAGE_DEFAULT_DEPTH;
  const offset = typeof stored['_updated'] === 'number' ? stored['_updated'] : null;
  const walk = new Walk(hub, depth);
  const start: EntityRef = { dataset: request.dataset, entity: request.entity, offset };
  const steps = request.direction === 'up' ? await walk.up(start) : await walk.down(start);
  return {
    dataset: request.dataset,
    entity: request.entity,
    offset,
    direction: request.direction,
    depth,
    steps,
    cut: walk.cut,
    limits: { depth, 'fan-in': FAN, 'fan-out': FAN },
  };
}

function why(row: LineageRow): ProcessedReason {
  return { reason: row.reason, run: row.run, detail: row.detail };
}

class Walk {
  readonly cut: string[] = [];
  private readonly pipes: Map<string, EffectivePipe>;
  /** Runtimes without dependency tracking, to run a pipe's transform again for downstream answers. */
  private readonly drafts = new Map<string, PipeRuntime>();

  constructor(
    private readonly hub: Hub,
    private readonly depth: number,
  ) {
    this.pipes = new Map(hub.pipes.ids().map((id) => [id, hub.pipes.effective(id)]));
  }

  private writers(dataset: string): string[] {
    return [...this.pipes].filter(([, p]) => p.sink.type === 'dataset' && p.sink['dataset'] === dataset).map(([id]) => id);
  }

  /**
   * Breadth-first from `start`, one level per depth: `expand` gives one entity's steps and the entities to follow
   * next. Each entity version is expanded once; what the depth bound leaves out is said in `cut`.
   */
  private async walk<S>(start: EntityRef, expand: (ref: EntityRef, depth: number) => Promise<{ steps: S[]; next: EntityRef[] }>): Promise<S[]> {
    const steps: S[] = [];
    const seen = new Set<string>();
    let level: EntityRef[] = [start];
    for (let d = 0; level.length > 0; d++) {
      if (d >= this.depth) {
        this.cut.push(`depth ${this.depth} reached: ${level.length} entit${level.length === 1 ? 'y' : 'ies'} not followed further (${level.slice(0, 3).map(refText).join(', ')})`);
        break;
      }
      const next: EntityRef[] = [];
      for (const ref of level) {
        const key = refText(ref);
        if (seen.has(key)) continue;
        seen.add(key);
        const found = await expand(ref, d);
        steps.push(...found.steps);
        next.push(...found.next);
      }
      level = next;
    }
    return steps;
  }

  up(start: EntityRef): Promise<LineageStep[]> {
    return this.walk(start, async (ref, d) => {
      const steps: LineageStep[] = [];
      const next: EntityRef[] = [];
      const writers = this.writers(ref.dataset);
      if (writers.length > FAN) this.cut.push(`${ref.dataset} has ${writers.length} writing pipes: the first ${FAN} followed`);
      for (const pipeId of writers.slice(0, FAN)) {
        const step = await this.upStep(pipeId, ref, d);
        if (!step) continue;
        steps.push(step);
        const feeders = [...(step.source && step.contributors.length === 0 ? [step.source] : []), ...step.contributors];
        if (feeders.length > FAN) this.cut.push(`${refText(ref)}: ${feeders.length} source entities, the first ${FAN} followed`);
        next.push(...feeders.slice(0, FAN));
      }
      return { steps, next };
    });
  }

  private async upStep(pipeId: string, ref: EntityRef, depth: number): Promise<LineageStep | undefined> {
    const row = ref.offset === null ? undefined : this.hub.pumps.state.lineage.of(pipeId, ref.entity, ref.offset);
    const pipe = this.pipes.get(pipeId)!;
    const base = { depth, pipe: pipeId, output: ref, joined: [], parent: null };
    if (!row) {
      // A pipe writes the dataset but did not record this entity: written before lineage was recorded, or by another.
      return { ...base, source: null, contributors: [], via: 'transform', why: null, note: `no run of pipe ${JSON.stringify(pipeId)} recorded writing this entity` };
    }
    const contributors = Array.isArray(row.detail?.['contributors'])
      ? (row.detail['contributors'] as unknown as [string, string, number][]).map(([dataset, entity, offset]) => ({ dataset, entity, offset: offset < 0 ? null : offset }))
      : [];
    const sourceDataset = pipe.source.type === 'dataset' && typeof pipe.source['dataset'] === 'string' ? pipe.source['dataset'] : null;
    const source: EntityRef | null = sourceDataset !== null ? { dataset: sourceDataset, entity: row.src, offset: row.offset } : contributors.length > 0 ? { dataset: `(${pipe.source.type} source)`, entity: row.src, offset: null } : null;
    const step: LineageStep = { ...base, source, contributors, via: 'transform', why: why(row) };
    const output = this.version(ref);
    const sourceEntity = output && (await this.sourceEntity(pipeId, sourceDataset, row));
    if (!output || !sourceEntity) {
      step.note = !output ? 'this version is no longer stored' : 'the source entity that made it is no longer readable';
      return step;
    }
    try {
      const runtime = this.hub.pumps.runtimes.of(this.hub.pipes.require(pipeId));
      const traced = traceStep(runtime, sourceEntity, sourceDataset !== null ? source : null, output);
      Object.assign(step, { joined: traced.joined, parent: traced.parent, via: traced.via, properties: traced.properties }, traced.note ? { note: traced.note } : {});
      if (contributors.length > 0) this.memberProperties(step, traced.properties);
    } catch (e) {
      step.note = `the transform could not be traced: ${e instanceof Error ? e.message : String(e)}`;
    }
    return step;
  }

  /** A merged entity's properties that came through unchanged: from the first member that has them. */
  private memberProperties(step: LineageStep, properties: Record<string, PropertyOrigin>): void {
    const members = step.contributors.map((ref) => ({ ref, entity: this.version(ref) }));
    for (const [name, origin] of Object.entries(properties)) {
      if (origin.step !== '(source)' || origin.source !== null || name.startsWith('$') || name === '_id') continue;
      const m = members.find((x) => x.entity !== undefined && Object.hasOwn(x.entity, name));
      if (m) origin.source = { ...m.ref, property: name };
    }
  }

  /**
   * What the pipe makes of a source entity version (its transform run again, without dependency tracking), with what
   * its last run recorded for each output's stored version; an output it did not store is left out.
   */
  private made(pipeId: string, source: JsonObject): LineageRow[] {
    let runtime = this.drafts.get(pipeId);
    if (!runtime) this.drafts.set(pipeId, (runtime = this.hub.pumps.runtimes.draft(this.hub.pipes.require(pipeId))));
    let outs: JsonObject[];
    try {
      outs = runtime.process([source]);
    } catch {
      return [];
    }
    const pipe = this.pipes.get(pipeId)!;
    const sink = pipe.sink.type === 'dataset' && typeof pipe.sink['dataset'] === 'string' ? this.hub.datasets.get(pipe.sink['dataset']) : undefined;
    const srcId = source['_id'] as string;
    const srcOffset = typeof source['_updated'] === 'number' ? source['_updated'] : null;
    const rows: LineageRow[] = [];
    for (const o of outs.slice(0, FAN + 1)) {
      const oid = o['_id'];
      if (typeof oid !== 'string') continue;
      if (pipe.sink.type !== 'dataset') {
        // A sink that writes elsewhere: the record is in the outbox of the pipe's latest run.
        const run = this.hub.pumps.state.outbox.runs(pipeId, 1, 0).runs[0]?.['run_id'];
        rows.push({ pipe: pipeId, eid: oid, src: srcId, offset: srcOffset, reason: 'read', detail: null, run: typeof run === 'string' ? run : '' });
        continue;
      }
      const offset = sink?.get(oid)?.['_updated'];
      if (typeof offset !== 'number') continue;
      rows.push(this.hub.pumps.state.lineage.of(pipeId, oid, offset) ?? { pipe: pipeId, eid: oid, src: srcId, offset: null, reason: 'read', detail: null, run: '' });
    }
    return rows;
  }

  private version(ref: EntityRef): JsonObject | undefined {
    const ds = this.hub.datasets.get(ref.dataset);
    if (!ds) return undefined;
    return ref.offset === null ? ds.get(ref.entity) : (ds.getAt(ref.entity, ref.offset) ?? undefined);
  }

  /** The source entity version the row names: from the source dataset, else read from the pipe's source by id. */
  private async sourceEntity(pipeId: string, dataset: string | null, row: LineageRow): Promise<JsonObject | undefined> {
    if (dataset !== null) return this.version({ dataset, entity: row.src, offset: row.offset });
    const runtime = this.hub.pumps.runtimes.of(this.hub.pipes.require(pipeId));
    let n = 0;
    for await (const batch of runtime.openSource().batches(undefined, 1000)) {
      for (const e of batch.entities) if (e['_id'] === row.src) return e;
      n += batch.entities.length;
      if (n >= SOURCE_SCAN) break;
    }
    return undefined;
  }

  down(start: EntityRef): Promise<DownstreamStep[]> {
    return this.walk(start, (ref, d) => {
      const steps = this.downFrom(ref, d);
      const next = steps.flatMap((s) => ('dataset' in s.output ? [s.output] : []));
      return Promise.resolve({ steps, next });
    });
  }

  private downFrom(ref: EntityRef, depth: number): DownstreamStep[] {
    const out: DownstreamStep[] = [];
    const lineage = this.hub.pumps.state.lineage;
    const entity = this.version(ref);
    for (const [pipeId, pipe] of this.pipes) {
      const rows: { row: LineageRow; role: DownstreamStep['role'] }[] = [];
      if (pipeDependencies(pipe).includes(ref.dataset)) {
        const merged = pipe.source.type === 'merge';
        const made = merged ? lineage.madeFromMember(pipeId, ref.dataset, ref.entity, FAN + 1) : entity ? this.made(pipeId, entity) : [];
        for (const row of made) rows.push({ row, role: merged ? 'merged' : 'source' });
      }
      if (entity && trackedDatasets(pipe['transform']).tracked(ref.dataset)) {
        // Entities whose hops looked this one up (dependency tracking's record), and what they made.
        for (const path of this.hub.pumps.state.dependencyPaths(pipeId, ref.dataset)) {
          for (const k of lookupKeys(traverseLookupPath(entity, JSON.parse(path) as string[]))) {
            for (const src of this.hub.pumps.state.dependents(pipeId, ref.dataset, path, k).slice(0, FAN + 1)) {
              const srcDataset = pipe.source['dataset'];
              const srcEntity = typeof srcDataset === 'string' ? this.hub.datasets.get(srcDataset)?.get(src) : undefined;
              if (srcEntity) for (const row of this.made(pipeId, srcEntity)) rows.push({ row, role: 'joined' });
            }
          }
        }
      }
      if (rows.length > FAN) this.cut.push(`${refText(ref)}: pipe ${JSON.stringify(pipeId)} made more than ${FAN} entities from it, the first ${FAN} listed`);
      const sink = pipe.sink.type === 'dataset' && typeof pipe.sink['dataset'] === 'string' ? pipe.sink['dataset'] : null;
      const done = new Set<string>();
      for (const { row, role } of rows.slice(0, FAN)) {
        if (done.has(row.eid)) continue;
        done.add(row.eid);
        const thisVersion = role === 'joined' ? null : role === 'merged' ? memberOffset(row, ref) === ref.offset : row.offset === ref.offset;
        const output = sink !== null ? { dataset: sink, entity: row.eid, offset: latestOffset(this.hub, sink, row.eid) } : { outbox: row.run, entity: row.eid };
        out.push({ depth, pipe: pipeId, input: ref, role, output, 'from-this-version': thisVersion, why: why(row) });
      }
    }
    return out;
  }
}

function memberOffset(row: LineageRow, ref: EntityRef): number | null {
  const members = row.detail?.['contributors'];
  if (!Array.isArray(members)) return null;
  for (const m of members) if (Array.isArray(m) && m[0] === ref.dataset && m[1] === ref.entity) return typeof m[2] === 'number' ? m[2] : null;
  return null;
}

function latestOffset(hub: Hub, dataset: string, id: string): number | null {
  const offset = hub.datasets.get(dataset)?.get(id)?.['_updated'];
  return typeof offset === 'number' ? offset : null;
}

function refText(ref: EntityRef): string {
  return `${ref.dataset}/${ref.entity}${ref.offset === null ? '' : `@${ref.offset}`}`;
}
