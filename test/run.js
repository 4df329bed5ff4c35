#!/usr/bin/env node
// Runs every compiled test file with node's test runner; the closing lines report pass/fail counts.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'out', 'test');
const files = [];
const walk = (d) => {
  for (const name of readdirSync(d).sort()) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'helpers' && name !== 'bench') walk(p);
    } else if (name.endsWith('.test.js')) files.push(p);
  }
};
walk(dir);
// Each argument picks the files whose path contains it: `node test/run.js ui-a11y ui-frame`.
const filters = process.argv.slice(2);
const selected = filters.length > 0 ? files.filter((f) => filters.some((s) => f.includes(s))) : files;
if (selected.length === 0) {
  console.error('no test files found under out/test; run "npm run build" first');
  process.exit(1);
}
// The keychain tests need a real Secret Service: on Linux, run the whole suite inside a private D-Bus
// session with an unlocked gnome-keyring (apt: dbus gnome-keyring). Elsewhere the OS keychain is used.
// The bus starts the keyring itself, unlocked, whenever it is asked for: gnome-keyring has been seen to abort
// mid-run (a GLib assertion), and the stock activation would then start a locked one whose unlock prompt
// cannot open here. Its keyring file stays in the folder below, so a restarted daemon reads what was stored.
const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
if (process.platform === 'linux' && !process.env.DATAHUB_TEST_KEYRING && onPath('dbus-run-session') && onPath('gnome-keyring-daemon')) {
  const home = mkdtempSync(join(tmpdir(), 'datahub-keyring-'));
  const services = join(home, 'services');
  mkdirSync(services);
  writeFileSync(join(home, 'session.conf'), busConfig(services));
  writeFileSync(
    join(services, 'org.freedesktop.secrets.service'),
    '[D-BUS Service]\nName=org.freedesktop.secrets\n' +
      'Exec=/bin/sh -c "printf datahub-tests | exec gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null"\n',
  );
  const res = spawnSync('dbus-run-session', [`--config-file=${join(home, 'session.conf')}`, '--', process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    cwd: root,
    // A keyring folder of its own: never the user's login keyring, whatever password that has.
    env: { ...process.env, DATAHUB_TEST_KEYRING: 'secret-service', XDG_DATA_HOME: join(home, 'data') },
  });
  rmSync(home, { recursive: true, force: true });
  process.exit(res.status ?? 1);
}
if (process.platform === 'linux' && !process.env.DATAHUB_TEST_KEYRING) {
  console.error('note: dbus-run-session or gnome-keyring-daemon is missing (apt: dbus gnome-keyring); keychain tests will fail');
}
const res = spawnSync(process.execPath, [
  '--test',
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  `--test-reporter=${join(root, 'test', 'slowest-files-reporter.js')}`,
  '--test-reporter-destination=stdout',
  '--test-concurrency=2',
  ...selected,
], { stdio: 'inherit', cwd: root });
process.exit(res.status ?? 1);

/** A session bus like the stock one, whose only activatable service is the test keyring. */
function busConfig(serviceDir) {
  return `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:tmpdir=${tmpdir()}</listen>
  <auth>EXTERNAL</auth>
  <servicedir>${serviceDir}</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`;
}
