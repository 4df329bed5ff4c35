// What GET /desktop/workspace and POST /desktop/workspace/test answer (main/server/desktop/desktop-workspace.ts). The
// test report's types are declared once, in hub-core/desktop-types.ts, for the host and the workbench.

export interface WorkspaceInfo {
  dir: string;
  nodeDir: string;
  tests: { name: string; pipe: string; file: string; stage: string; ignore: boolean }[];
  problem: string | null;
  running: boolean;
}

import type { WorkspaceTestReport, WorkspaceTestResult } from '../../../hub-core/desktop-types';

export type { EntityDiff, PipeRunSummary as PipeRun, WorkspaceTestReport as TestReport, WorkspaceTestResult as TestResult } from '../../../hub-core/desktop-types';

/** What POST /desktop/workspace/test/accept and …/ignore answer. */
export interface AcceptAnswer {
  file: string;
  written: boolean;
  message: string;
  pattern?: string;
  result: WorkspaceTestResult;
}

/** GET/PUT /desktop/workspace/test/loop: "re-run affected tests on save" and the last run it made. */
export interface LoopState {
  enabled: boolean;
  running: boolean;
  last: {
    seq: number;
    at: string;
    changed: string[];
    tests: { name: string; reasons: string[] }[];
    unrelated: string[];
    status: 'running' | 'done' | 'failed';
    report: WorkspaceTestReport | null;
    error: string | null;
  } | null;
}
