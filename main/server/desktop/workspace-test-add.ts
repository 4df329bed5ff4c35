// "Add test" on a pipe: a new expected/<name>.test.json and its expected file made from what the pipe produces in a
// test run (the project's pipes up to this one, in a fresh temporary hub with test-env.json, as `datahub test` runs
// them). Asked first without `confirm` to see the entities the expected file would hold; with `confirm` both files
// are written (the expected file by the same code as `datahub test --update`).
import { existsSync, mkdirSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_ROUNDS, runProject } from '../../../hub-core/project/index.js';
import { parseTestSpec, runTest, testSpecFileText } from '../../../hub-core/project/index.js';
import { workspaceNodeDir } from '../../../hub-core/project/index.js';
import { HubError, badRequest, conflict } from '../../../hub-core/base/index.js';
import type { NewTestRequest, NewTestResult } from '../../../hub-core/desktop-types.js';
import type { JsonObject } from '../../../hub-core/base/index.js';

export type { NewTestRequest, NewTestResult };

const BAD_NAME = /[/\\:*?"<>|%\0]/;

function writeAtomically(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export async function addWorkspaceTest(dir: string, req: NewTestRequest): Promise<NewTestResult> {
  const name = req.name.trim();
  if (name === '' || name.startsWith('.') || BAD_NAME.test(name) || name.length > 200) {
    throw badRequest(`invalid test name ${JSON.stringify(req.name)}`, 'a test name becomes a file name: up to 200 characters, none of / \\ : * ? " < > | %, not starting with "."');
  }
  const nodeDir = workspaceNodeDir(dir);
  const specFile = `${name}.test.json`;
  if (existsSync(join(nodeDir, 'expected', specFile))) throw conflict(`a test named ${JSON.stringify(name)} exists already`, `expected/${specFile}; pick another name`);
  const value: JsonObject = { pipe: req.pipe };
  if (req.stage !== undefined) value['stage'] = req.stage;
  if (req.blacklist !== undefined) value['blacklist'] = req.blacklist.map((b) => b.trim()).filter((b) => b !== '');
  if (req.ignore !== undefined) value['ignore'] = req.ignore;
  if (req.ignore_deletes !== undefined) value['ignore_deletes'] = req.ignore_deletes;
  const spec = parseTestSpec(name, value);
  const specText = testSpecFileText(spec);
  const run = await runProject(dir, { maxRounds: DEFAULT_MAX_ROUNDS, only: [spec.pipe] });
  try {
    const pipe = run.pipes.find((p) => p.pipe === spec.pipe);
    if (pipe?.status === 'failed') throw new HubError(400, `pipe ${JSON.stringify(spec.pipe)} fails in a test run`, pipe.error ?? undefined);
    const replacesFile = existsSync(join(nodeDir, 'expected', spec.file));
    const confirm = req.confirm === true;
    if (confirm) {
      mkdirSync(join(nodeDir, 'expected'), { recursive: true });
      const target = join(nodeDir, 'expected', specFile);
      writeAtomically(target, specText);
    }
    // An ignored test still gets its expected file, from the pipe's output.
    const r = await runTest(run.hub, run.nodeDir, { ...spec, ignore: false }, { update: confirm });
    if (r.error && r.actual.length === 0 && !r.error.includes('does not exist')) throw badRequest(`the output of pipe ${JSON.stringify(spec.pipe)} cannot be read`, r.error);
    return { name, pipe: spec.pipe, stage: spec.stage, specFile, file: spec.file, specText, entities: r.actual, replacesFile, written: confirm };
  } finally {
    run.close();
  }
}
