// What GET /desktop/workspace and POST /desktop/workspace/test answer (main/server/routes/desktop-workspace.ts).
// Written out here because the renderer imports nothing from main/; the route's reply schema holds the same shape.

export interface WorkspaceInfo {
  dir: string;
  nodeDir: string;
  tests: { name: string; pipe: string; file: string; stage: string; ignore: boolean }[];
  problem: string | null;
  running: boolean;
}

export interface EntityChange {
  path: string;
  expected?: unknown;
  actual?: unknown;
}

export interface EntityDiff {
  id: string;
  kind: 'missing' | 'unexpected' | 'changed';
  entity?: Record<string, unknown>;
  changes: EntityChange[];
}

export interface TestResult {
  name: string;
  pipe: string;
  file: string;
  stage: string;
  status: 'passed' | 'failed' | 'ignored';
  error: string | null;
  diffs: EntityDiff[];
  diffText: string[];
}

export interface PipeRun {
  pipe: string;
  runs: number;
  processed: number;
  changes: number;
  status: 'ok' | 'failed' | 'skipped';
  error: string | null;
}

export interface TestReport {
  update: boolean;
  rounds: number;
  converged: boolean;
  pipes: PipeRun[];
  tests: TestResult[];
  passed: number;
  failed: number;
  ignored: number;
  durationMs: number;
}
