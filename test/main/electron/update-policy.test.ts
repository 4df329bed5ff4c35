// The update rules of the desktop app, in plain Node: when it checks, when it never does, what counts as offline,
// what the window is told (main/electron/update-policy.ts) and what the notice says (renderer/src/lib/update-notice.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, removeDir, tempDir } from '../../helpers/hub-process.js';
import {
  CHECK_INTERVAL_MS, CHECK_TICK_MS, checkFailureMessage, isCheckDue, isOffline, loadUpdateSettings, nextStatus, releaseNotesText, saveUpdateSettings, updatesUnsupported, type UpdateEvent,
} from '../../../main/electron/update-policy.js';
import type { UpdateStatus } from '../../../main/electron/channels.js';
import type * as NoticeModule from '../../../renderer/src/lib/update-notice.js';

const HOUR = 60 * 60 * 1000;

describe('where the app looks for updates', () => {
  test('never in a development tree, on any OS', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const status = updatesUnsupported({ isPackaged: false, platform, appImage: '/x/Datahub.AppImage' });
      assert.equal(status?.reason, 'development', platform);
    }
  });

  test('installed on Windows and macOS, and on Linux only as an AppImage', () => {
    assert.equal(updatesUnsupported({ isPackaged: true, platform: 'win32', appImage: undefined }), null);
    assert.equal(updatesUnsupported({ isPackaged: true, platform: 'darwin', appImage: undefined }), null);
    assert.equal(updatesUnsupported({ isPackaged: true, platform: 'linux', appImage: '/home/me/Apps/datahub-desktop.AppImage' }), null);
    const deb = updatesUnsupported({ isPackaged: true, platform: 'linux', appImage: undefined });
    assert.equal(deb?.reason, 'package-manager');
    assert.match(deb?.message ?? '', /package manager/);
    assert.equal(updatesUnsupported({ isPackaged: true, platform: 'linux', appImage: '' })?.reason, 'package-manager', 'an empty APPIMAGE is no AppImage');
  });

  test('a check at start, then when 12 hours have passed (also after a sleep longer than that)', () => {
    assert.equal(CHECK_INTERVAL_MS, 12 * HOUR);
    assert.ok(CHECK_TICK_MS < CHECK_INTERVAL_MS);
    const start = Date.UTC(2026, 10, 25, 8);
    assert.equal(isCheckDue(undefined, start), true, 'no check yet: at start');
    assert.equal(isCheckDue(start, start + 11 * HOUR), false);
    assert.equal(isCheckDue(start, start + 12 * HOUR), true);
    assert.equal(isCheckDue(start, start + 40 * HOUR), true, 'woke after a long sleep');
    assert.equal(isCheckDue(start, start - HOUR), true, 'the clock went back: check rather than wait for days');
  });

  test('offline is recognised from Chromium’s and Node’s network errors, and a scheduled check never says anything', () => {
    for (const message of ['net::ERR_INTERNET_DISCONNECTED', 'net::ERR_NAME_NOT_RESOLVED', 'net::ERR_CONNECTION_REFUSED', 'net::ERR_NETWORK_CHANGED', 'getaddrinfo ENOTFOUND github.com', 'connect ETIMEDOUT 1.2.3.4:443']) {
      assert.equal(isOffline(new Error(message)), true, message);
      assert.equal(checkFailureMessage(new Error(message), false), null, `scheduled, ${message}`);
      assert.match(checkFailureMessage(new Error(message), true) ?? '', /online/, `asked, ${message}`);
    }
    const code = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    assert.equal(isOffline(code), true, 'the error code counts too');
    assert.equal(isOffline(new Error('sha512 checksum mismatch')), false);
    assert.equal(checkFailureMessage(new Error('sha512 checksum mismatch'), false), null, 'a scheduled check stays silent on any failure');
    assert.equal(checkFailureMessage(new Error('sha512 checksum mismatch\n  at x'), true), 'The update check failed: sha512 checksum mismatch');
    assert.match(checkFailureMessage(new Error('HttpError: 404 \n"method: GET url: https://github.com/o/r/releases.atom"'), true) ?? '', /No released version/);
  });
});

describe('the status the window is told', () => {
  const run = (events: UpdateEvent[], from: UpdateStatus = { state: 'idle' }): UpdateStatus => events.reduce(nextStatus, from);
  const found: UpdateEvent = { type: 'available', version: '1.3.0', releaseNotes: 'Faster pumps', releaseDate: '2026-11-20T10:00:00.000Z' };

  test('a scheduled check that finds nothing, or fails offline, shows nothing', () => {
    assert.deepEqual(run([{ type: 'checking', askedByUser: false }, { type: 'not-available', askedByUser: false }]), { state: 'idle' });
    assert.deepEqual(run([{ type: 'checking', askedByUser: false }, { type: 'error', error: new Error('net::ERR_INTERNET_DISCONNECTED'), askedByUser: false, duringDownload: false }]), { state: 'idle' });
  });

  test('a check the user asked for answers: up to date, or why it failed', () => {
    assert.deepEqual(run([{ type: 'checking', askedByUser: true }, { type: 'not-available', askedByUser: true }]), { state: 'up-to-date' });
    assert.deepEqual(run([{ type: 'checking', askedByUser: true }, { type: 'error', error: new Error('net::ERR_NAME_NOT_RESOLVED'), askedByUser: true, duringDownload: false }]), {
      state: 'failed',
      message: 'No connection to the update server; try again when you are online.',
    });
  });

  test('found → download on request with progress → ready to restart, the release notes carried along', () => {
    const available = run([{ type: 'checking', askedByUser: false }, found]);
    assert.deepEqual(available, { state: 'available', version: '1.3.0', releaseNotes: 'Faster pumps', releaseDate: '2026-11-20T10:00:00.000Z' });
    const downloading = run([{ type: 'progress', percent: 41.6 }], available);
    assert.deepEqual(downloading, { state: 'downloading', version: '1.3.0', releaseNotes: 'Faster pumps', percent: 42 });
    assert.deepEqual(run([{ type: 'downloaded', version: '1.3.0' }], downloading), { state: 'ready', version: '1.3.0', releaseNotes: 'Faster pumps' });
  });

  test('a later scheduled check keeps a found or downloaded update on screen', () => {
    const ready: UpdateStatus = { state: 'ready', version: '1.3.0', releaseNotes: 'n' };
    assert.deepEqual(run([{ type: 'checking', askedByUser: false }, { type: 'not-available', askedByUser: false }], ready), ready);
    assert.deepEqual(run([{ type: 'checking', askedByUser: false }, found], ready), ready, 'the same version again');
    assert.equal((run([{ type: 'checking', askedByUser: false }, { ...found, version: '1.4.0' }], ready) as { version: string }).version, '1.4.0', 'a newer one replaces it');
    const offline: UpdateEvent = { type: 'error', error: new Error('net::ERR_INTERNET_DISCONNECTED'), askedByUser: false, duringDownload: false };
    assert.deepEqual(run([{ type: 'checking', askedByUser: false }, offline], ready), ready);
    const available = run([found]);
    assert.deepEqual(run([{ type: 'checking', askedByUser: false }, offline], available), available, 'a scheduled check keeps a found one too');
  });

  test('a check the user asks for starts over from a found update and answers with it again', () => {
    const available = run([found]);
    assert.deepEqual(run([{ type: 'checking', askedByUser: true }], available), { state: 'checking', askedByUser: true });
    assert.deepEqual(run([{ type: 'checking', askedByUser: true }, found], available), available);
    const downloading: UpdateStatus = { state: 'downloading', version: '1.3.0', releaseNotes: 'n', percent: 5 };
    assert.deepEqual(run([{ type: 'checking', askedByUser: true }], downloading), downloading, 'a download under way is not interrupted');
  });

  test('a download that stops offers the update again and says why', () => {
    const downloading: UpdateStatus = { state: 'downloading', version: '1.3.0', releaseNotes: 'n', percent: 30 };
    const after = run([{ type: 'error', error: new Error('net::ERR_NETWORK_CHANGED'), askedByUser: true, duringDownload: true }], downloading);
    assert.deepEqual(after, { state: 'available', version: '1.3.0', releaseNotes: 'n', problem: 'The download stopped: no connection. Try again when you are online.' });
  });

  test('an installation that cannot update stays so whatever happens', () => {
    const deb = updatesUnsupported({ isPackaged: true, platform: 'linux', appImage: undefined })!;
    assert.equal(run([{ type: 'checking', askedByUser: true }, found, { type: 'progress', percent: 50 }], deb), deb);
  });
});

describe('release notes', () => {
  test('GitHub’s HTML becomes plain text: lists, paragraphs, entities; scripts and tags gone', () => {
    const html = '<h2>What&#39;s new</h2><ul><li>Faster <b>pumps</b></li><li>Fix &lt;csv&gt; &amp; xlsx export</li></ul><p>Thanks!<br>The team</p><script>alert(1)</script><img src=x onerror="alert(2)">';
    assert.equal(releaseNotesText(html), "What's new\n\n• Faster pumps\n• Fix <csv> & xlsx export\n\nThanks!\nThe team");
    assert.equal(releaseNotesText(null), '');
    assert.equal(releaseNotesText([{ version: '1.3.0', note: '<p>B</p>' }, { version: '1.2.0', note: 'A' }]), '1.3.0\nB\n\n1.2.0\nA');
  });
});

describe('the update setting', () => {
  test('checks are on by default, turned off and back on, and a damaged file means the default', () => {
    const dir = tempDir();
    try {
      const file = join(dir, 'user', 'update-settings.json');
      assert.deepEqual(loadUpdateSettings(file), { checkAutomatically: true });
      saveUpdateSettings(file, { checkAutomatically: false });
      assert.deepEqual(loadUpdateSettings(file), { checkAutomatically: false });
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { checkAutomatically: false });
      writeFileSync(file, '{"checkAutomatically": "no"');
      assert.deepEqual(loadUpdateSettings(file), { checkAutomatically: true });
      writeFileSync(file, '{"checkAutomatically": "no"}');
      assert.deepEqual(loadUpdateSettings(file), { checkAutomatically: true }, 'only a boolean counts');
    } finally {
      removeDir(dir);
    }
  });
});

describe('the notice in the workbench', async () => {
  // The renderer's module imports only types, so Node runs its source as it is (types stripped).
  const { updateNotice, ACTION_LABELS } = (await import(pathToFileURL(join(REPO, 'renderer', 'src', 'lib', 'update-notice.ts')).href)) as typeof NoticeModule;
  const available: UpdateStatus = { state: 'available', version: '1.3.0', releaseNotes: '• Faster pumps' };

  test('an available update: its version, the notes, Download, Later and a way to stop the checks', () => {
    const notice = updateNotice(available, '1.2.0', null)!;
    assert.equal(notice.title, 'Datahub Desktop 1.3.0 is available');
    assert.match(notice.detail, /You have 1\.2\.0/);
    assert.equal(notice.notes, '• Faster pumps');
    assert.deepEqual(notice.actions.map((a) => ACTION_LABELS[a]), ['Download update', 'Later', 'Stop checking for updates']);
  });

  test('Later hides that version for the session, not a newer one, and not a failed download', () => {
    assert.equal(updateNotice(available, '1.2.0', '1.3.0'), null);
    assert.ok(updateNotice({ ...available, version: '1.4.0' }, '1.2.0', '1.3.0'));
    assert.equal(updateNotice({ ...available, problem: 'The download stopped' }, '1.2.0', '1.3.0')?.tone, 'problem');
  });

  test('downloading shows progress; a downloaded update offers Restart to update', () => {
    assert.equal(updateNotice({ state: 'downloading', version: '1.3.0', releaseNotes: '', percent: 42 }, '1.2.0', null)?.progress, 42);
    const ready = updateNotice({ state: 'ready', version: '1.3.0', releaseNotes: 'n' }, '1.2.0', '1.3.0')!;
    assert.deepEqual(ready.actions.map((a) => ACTION_LABELS[a]), ['Restart to update', 'Later']);
  });

  test('nothing for a quiet status, the answer for a check the user asked for', () => {
    for (const quiet of [{ state: 'idle' }, { state: 'checking', askedByUser: false }, { state: 'unsupported', reason: 'development', message: 'x' }] as UpdateStatus[]) {
      assert.equal(updateNotice(quiet, '1.2.0', null), null, quiet.state);
    }
    assert.match(updateNotice({ state: 'up-to-date' }, '1.2.0', null)?.detail ?? '', /latest version, 1\.2\.0/);
    assert.equal(updateNotice({ state: 'failed', message: 'No connection' }, '1.2.0', null)?.detail, 'No connection');
    assert.equal(updateNotice({ state: 'checking', askedByUser: true }, '1.2.0', null)?.title, 'Checking for updates…');
  });
});
