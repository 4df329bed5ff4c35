// The DTL engine as the rest of the hub uses it: everything outside dtl/ imports from here, never from its files.

export { compileTransform, type CompiledTransform, type DtlTransformOptions, type DtlRunResult } from './transform.js';
export { compileExpression, childPath, type CompiledExpression } from './compiler.js';
export { DtlRuntimeError, DtlCompileError, type DtlErrorKind } from './context.js';
export { DtlLimitError, entityTimeLimitMs, guardServingThread, heapExhausted, memoryLimitError, SERVING_THREAD_HOLD_MS } from './work-limit.js';
export { lookupKeys, MemoryLookup, type DtlLookup } from './lookup.js';
export { traverse, traverseLookupPath, isNamespacedPath } from './paths.js';
export { MAX_DECIMAL_EXPONENT } from './decimal.js';
export { DateTime, Decimal, decode, encode, isTruthy, keyOf, parseTagged, typedOf, type DtlDict, type DtlValue, type TypedKind } from './values.js';
export { addEntityIds, type NamespaceSettings } from './functions/identifiers.js';
export { functionCatalogue } from './catalogue.js';
export { compileTracedTransform, traceExpression, type TracedRun, type TracedTransform, type TracedExpression } from './trace.js';
export { DEFAULT_TRACE_LIMITS, type TraceLimits, type TransformTrace, type EntityTrace, type TraceNode, type TracePropertyEvent } from './trace-types.js';
export { traceInWords } from './trace-words.js';
export { compileCondition, recordSteps, DEFAULT_STEP_LIMITS, MAX_STEPS, type StepLimits, type StepRecord, type StepRecording, type CompiledCondition } from './step-through.js';
export type { FunctionDoc, ExampleDoc } from './catalogue.js';

// Used by the tests and the host beside the engine's entry points above.
export { compileRules } from './compiler.js';
export { compileParser } from './datetime.js';
export { registry } from './functions/index.js';
export { lookupKey } from './lookup.js';
export { isPathString, parsePath } from './paths.js';
export { Bytes, Ni, Uri, Uuid, asList, compareCompatible, compareValues, kindOf, toText, valuesEqual } from './values.js';
export { compileWildcard, compileWildcards } from './wildcard.js';
