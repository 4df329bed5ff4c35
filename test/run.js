#!/usr/bin/env node
// Runs every compiled test file with node's test runner; the closing lines report pass/fail counts.
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
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
const filter = process.argv[2];
const selected = filter ? files.filter((f) => f.includes(filter)) : files;
if (selected.length === 0) {
  console.error('no test files found under out/test; run "npm run build" first');
  process.exit(1);
}
// The keychain tests need a real Secret Service: on Linux, run the whole suite inside a private D-Bus
// session with an unlocked gnome-keyring (apt: dbus gnome-keyring). Elsewhere the OS keychain is used.
const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
if (process.platform === 'linux' && !process.env.DATAHUB_TEST_KEYRING && onPath('dbus-run-session') && onPath('gnome-keyring-daemon')) {
  const inner = 'printf "datahub-tests" | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$0" "$@"';
  const res = spawnSync('dbus-run-session', ['--', 'sh', '-c', inner, process.execPath, ...process.argv.slice(1)], {
    stdio: 'inherit',
    cwd: root,
    // A keyring folder of its own: never the user's login keyring, whatever password that has.
    env: { ...process.env, DATAHUB_TEST_KEYRING: 'secret-service', XDG_DATA_HOME: mkdtempSync(join(tmpdir(), 'datahub-keyring-')) },
  });
  process.exit(res.status ?? 1);
}
if (process.platform === 'linux' && !process.env.DATAHUB_TEST_KEYRING) {
  console.error('note: dbus-run-session or gnome-keyring-daemon is missing (apt: dbus gnome-keyring); keychain tests will fail');
}
const res = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=2', ...selected], { stdio: 'inherit', cwd: root });
process.exit(res.status ?? 1);
