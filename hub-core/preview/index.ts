// What a pipe would do without running it: its stages for sample entities, traces, the impact of a
// draft, and published endpoint output.
export { IMPACT_DEFAULT_SAMPLE, IMPACT_MAX_SAMPLE, ImpactCancelled, computeImpact, downstreamPipes, impactDraft } from './pipe-impact.js';
export type { ImpactJob, ImpactSample, ImpactTest, ImpactTests, TestStatus } from './pipe-impact.js';
export { PIPE_STAGES, PREVIEW_DEFAULT_LIMIT, PREVIEW_MAX_ENTITIES, chainSteps, pipeStageEntities, pipeStageStream, previewPipe } from './pipe-stages.js';
export type { PipePreview, PipeStage, PreviewRequest } from './pipe-stages.js';
export { MAX_TRACED_ENTITIES } from './pipe-trace.js';
export { publication } from './publishers.js';
export type { PublishFormat, PublishQuery } from './publishers.js';
export { stepThroughPipe } from './pipe-step-through.js';
export type { StepThrough, StepThroughRequest } from './pipe-step-through.js';
export { PREVIEW_DEADLINE_MS, PreviewPool, localEvaluator, previewDeadlineMs } from './preview-pool.js';
export type { PreviewEvaluator, PreviewWorkersStatus } from './preview-pool.js';
