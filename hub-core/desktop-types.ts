// Shapes the desktop host (main/) answers on its /desktop routes and the workbench (renderer/) reads, declared once
// for both: the renderer may import types from hub-core, but nothing from main/.
import type { PipeRunSummary } from './project/index.js';
import type { EntityDiff } from './project/index.js';
import type { JsonObject } from './base/index.js';

export type ConnectionKind = 'portal' | 'instance' | 'registry';

/** A saved portal or instance connection (its token lives only in the OS keychain and is never answered). */
export interface Connection {
  id: string;
  kind: ConnectionKind;
  label: string;
  /** Base URL: the portal API root, an instance's API root (…/api), or a dataset registry's address (…/registry). */
  url: string;
  created: string;
  /** For an instance opened from a portal: the subscription it belongs to and the portal connection. */
  subscription?: string;
  portal?: string;
  /** Kept for this run of the app only: the token is in memory, never on disk or in the keychain. */
  session?: boolean;
}

/** What downloading a remote instance's configuration into a folder wrote. */
export interface DownloadResult {
  folder: string;
  nodeDir: string;
  written: string[];
  removed: string[];
  env: number;
  secrets: number;
}

/** One test of a workspace run from the workbench (`datahub test` as data). */
export interface WorkspaceTestResult {
  name: string;
  pipe: string;
  /** The expected file, relative to node/expected/. */
  file: string;
  stage: string;
  status: 'passed' | 'failed' | 'ignored';
  /** Why the test could not compare (unknown pipe, missing file, the pipe failed, ...). */
  error: string | null;
  diffs: EntityDiff[];
  /** The diffs as the CLI prints them. */
  diffText: string[];
  /** The pipes the test's result depends on that ran, with the time each took (as `datahub test --json` gives). */
  pipes?: { pipe: string; ms: number; runs: number; status: string }[];
}

export interface WorkspaceTestReport {
  update: boolean;
  rounds: number;
  converged: boolean;
  pipes: PipeRunSummary[];
  tests: WorkspaceTestResult[];
  passed: number;
  failed: number;
  ignored: number;
  durationMs: number;
  /** Groups of tests with no pipe or dataset in common that ran apart, side by side (when there were several). */
  groups?: { tests: string[]; pipes: string[]; ms: number }[];
}

export type { EntityDiff, PipeRunSummary };

// "Add test" on a pipe (POST /desktop/workspace/tests, main/server/desktop/workspace-test-add.ts).
export interface NewTestRequest {
  name: string;
  pipe: string;
  stage?: string;
  blacklist?: string[];
  ignore?: boolean;
  ignore_deletes?: boolean;
  /** Write the files; without it, only answer what they would hold. */
  confirm?: boolean;
}

export interface NewTestResult {
  name: string;
  pipe: string;
  stage: string;
  /** The spec file, relative to node/expected/. */
  specFile: string;
  /** The expected file, relative to node/expected/. */
  file: string;
  specText: string;
  /** The entities the expected file holds (normalised as the test compares them). */
  entities: JsonObject[];
  /** An expected file of that name existed already (it is replaced). */
  replacesFile: boolean;
  written: boolean;
}

// "Sync rules" with a subscription (POST /desktop/portal/<conn>/subscriptions/<sub>/sync-rules, main/remote/rules-sync.ts).
export type RuleSyncAction = 'create' | 'update' | 'replace' | 'remove' | 'same';

export interface RuleSyncChange {
  pipe: string;
  name: string;
  action: RuleSyncAction;
  /** What changes, in words (update, replace). */
  what: string[];
  /** Done by this call (false for a diff, and for removals and replacements not confirmed). */
  done: boolean;
}

export interface RuleSyncResult {
  changes: RuleSyncChange[];
  /** Subscription rules of pipes this hub does not have: left alone. */
  elsewhere: number;
  applied: boolean;
}
