// What GET /desktop/workspace and POST /desktop/workspace/test answer (main/server/routes/desktop-workspace.ts). The
// test report's types are declared once, in hub-core/desktop-types.ts, for the host and the workbench.

export interface WorkspaceInfo {
  dir: string;
  nodeDir: string;
  tests: { name: string; pipe: string; file: string; stage: string; ignore: boolean }[];
  problem: string | null;
  running: boolean;
}

export type { EntityDiff, PipeRunSummary as PipeRun, WorkspaceTestReport as TestReport, WorkspaceTestResult as TestResult } from '../../../hub-core/desktop-types';
