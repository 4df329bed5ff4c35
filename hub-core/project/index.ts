// Projects and their tests: a workspace folder loaded into a hub, the project runner, tests, accepting
// their output, which tests a change affects, isolated test groups, and sample data pulled from an instance.
export { affectedTests, configEntitiesOfText, configSnapshot, isConfigFilePath, testInputTexts } from './affected-tests.js';
export type { AffectedSelection, AffectedTest } from './affected-tests.js';
export { judgeDraft, testsToJudge } from './impact-tests.js';
export type { ImpactTests } from './impact-tests.js';
export { DEFAULT_MAX_ROUNDS, loadProject, pipeRunOrder, projectRunOptions, runProject } from './project-runner.js';
export type { PipeRunSummary, ProjectRun } from './project-runner.js';
export { blacklistTest, diffEntities, expectedFileText, formatDiffs, isOutputPipe, normaliseEntities, parseTestSpec, projectChecks, readTestSpecs, runTest, testSpecFileText } from './project-test.js';
export type { EntityDiff, PathTest, ProjectCheck, PublishedOutput, TestResult, TestSpec } from './project-test.js';
export { Scrubber, parseScrubPatterns } from './sample-scrub.js';
export { realSource, sampleFileText, testEnvWithNodeEnv } from './sample-source.js';
export { acceptedEntities, acceptedProperty, blacklistPatternOf, blacklistedSpecText, entityKey, expectedFileUpdate } from './test-accept.js';
export { acceptTestOutput } from './test-accept-output.js';
export type { AcceptOutcome, AcceptRun, AcceptWhat } from './test-accept-output.js';
export { testClosure, testGroups } from './test-groups.js';
export { TestSession, threadCpuMs } from './test-session.js';
export type { GroupRun } from './test-session.js';
export type { TestGroup } from './test-groups.js';
export { Workspace, workspaceNodeDir } from './workspace.js';
export type { WorkspaceLoad, WorkspaceProblem } from './workspace.js';
