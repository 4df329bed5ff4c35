// Errors across the thread boundary of a worker (pipe workers, preview workers): the worker sends what it raised as
// plain data (errorOf), the hub's thread makes the same error class of it again (errorFromWorker), so a DTL limit is
// still a 422 in the same words, a bad request a 400, and so on.

import { DtlLimitError, DtlRuntimeError, type DtlErrorKind } from '../../dtl/index.js';
import { HubError, UnsetVariableError } from '../../base/index.js';
import type { Mask } from '../../security/index.js';
import type { WorkerError } from './protocol.js';

/** What a worker raised, as it crosses to the hub's thread. */
export function errorOf(e: unknown): WorkerError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e), stack: undefined };
  const base = { name: e.name, message: e.message, stack: e.stack };
  if (e instanceof HubError) return { ...base, status: e.status, ...(e.detail !== undefined ? { detail: e.detail } : {}) };
  if (e instanceof DtlRuntimeError) {
    return { ...base, kind: e.kind, ...(e.elements !== undefined ? { elements: e.elements } : {}), ...(e.entityId !== undefined ? { entityId: e.entityId } : {}) };
  }
  return base;
}

/** The error a worker raised, as the class the pump knows (a DTL limit disables the pump, a trip trips the sink). */
export function errorFromWorker(e: WorkerError): Error {
  let error: Error;
  if (e.name === 'DtlLimitError') error = new DtlLimitError(e.message, e.detail ?? '');
  else if (e.name === 'UnsetVariableError') error = new UnsetVariableError(e.message, e.detail);
  else if (e.kind !== undefined) error = new DtlRuntimeError(e.kind as DtlErrorKind, e.message, e.elements, e.entityId);
  else if (e.status !== undefined) error = new HubError(e.status, e.message, e.detail);
  else error = new Error(e.message);
  error.name = e.name;
  if (e.stack !== undefined) error.stack = e.stack;
  return error;
}

/** The error's texts (message, detail, stack, elements, entity id) with `mask` applied: a failure may quote a secret. */
export function maskWorkerError(e: WorkerError, mask: Mask): WorkerError {
  const out: Record<string, unknown> = { ...e };
  for (const [k, v] of Object.entries(e)) if (typeof v === 'string' && k !== 'name' && k !== 'kind') out[k] = mask(v);
  return out as unknown as WorkerError;
}

/** An error with its texts masked (maskWorkerError), of the same class. */
export function maskError(e: Error, mask: Mask): Error {
  return errorFromWorker(maskWorkerError(errorOf(e), mask));
}

/** A worker died of its heap bound: the runaway-transform bound's failure, in words. */
export function outOfWorkerMemory(e: Error, memoryMb: number): DtlLimitError | undefined {
  if ((e as { code?: string }).code !== 'ERR_WORKER_OUT_OF_MEMORY') return undefined;
  return new DtlLimitError(
    'the transform needs more memory than the hub allows',
    `the worker thread running it used up its ${memoryMb} MB heap and was stopped; look for lists that grow with each other (a "map" or "range" inside another)`,
  );
}
