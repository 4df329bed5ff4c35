// The `datahub` command line: serve, signals, the data-dir lock, argument errors, help, DATAHUB_DATA.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { CLI, REPO, removeDir, startHub, tempDir, type HubProcess } from '../../helpers/hub-process.js';

interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Run the CLI to its end; a run that outlives `timeoutMs` (a server that should not have started) is killed. */
function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env } });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

function portOf(hub: HubProcess): number {
  return Number(new URL(hub.url).port);
}

function isPortOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (open: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(open);
    };
    const timer = setTimeout(() => done(false), 2000);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The non-empty lines of a text. */
const lines = (text: string): string[] => text.split('\n').filter((l) => l.trim() !== '');

describe('datahub serve', () => {
  test('--port 0 prints the URL line and the API answers', async () => {
    const hub = await startHub();
    try {
      const line = lines(hub.output()).find((l) => l.includes('listening at'));
      assert.ok(line, hub.output());
      const m = /^Datahub hub API listening at http:\/\/127\.0\.0\.1:(\d+)\/api \(/.exec(line);
      assert.ok(m, `unexpected line: ${line}`);
      const port = Number(m[1]);
      assert.ok(port > 0 && port !== 9042, `--port 0 picked a free port, not ${port}`);
      assert.ok(line.includes(hub.dataDir), 'the line names the data dir');
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      assert.equal(health.status, 200);
      assert.equal(existsSync(join(hub.dataDir, 'hub.lock')), true, 'the lock file exists while serving');
    } finally {
      assert.equal(await hub.stop(), 0);
      removeDir(hub.dataDir);
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} stops the hub cleanly: exit code 0, port closed, lock released`, async () => {
      const hub = await startHub();
      try {
        const port = portOf(hub);
        assert.equal(await isPortOpen(port), true);
        // A keep-alive connection must not hold the shutdown up.
        const res = await hub.fetch('/pipes');
        assert.equal(res.status, 200);
        await res.text();
        const started = Date.now();
        const code = await hub.stop(signal);
        assert.equal(code, 0, `exit code after ${signal}:\n${hub.output()}`);
        assert.equal(hub.child.signalCode, null, 'exited by itself, not killed by the signal');
        assert.ok(Date.now() - started < 10_000, 'stopped promptly');
        assert.equal(await isPortOpen(port), false, 'the port is closed afterwards');
        assert.equal(existsSync(join(hub.dataDir, 'hub.lock')), false, 'the lock file is removed');
        assert.match(hub.output(), new RegExp(`Received ${signal}`));

        // The data dir can be served again, with a new admin token; the old one is refused.
        const again = await startHub({ dataDir: hub.dataDir });
        try {
          const pipes = await again.fetch('/pipes', { headers: { authorization: `Bearer ${hub.token}` } });
          assert.equal(pipes.status, 401, 'a token from the previous run');
          assert.equal((await again.fetch('/pipes')).status, 200, 'the new token');
        } finally {
          assert.equal(await again.stop(), 0);
        }
      } finally {
        await hub.stop();
        removeDir(hub.dataDir);
      }
    });
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    test(`${signal} sent the moment the URL line appears still exits 0 (5 runs)`, async () => {
      // A supervisor signals as soon as it reads the readiness line; the handlers must already be in place.
      for (let i = 0; i < 5; i++) {
        const dataDir = tempDir();
        try {
          const child = spawn(process.execPath, [CLI, 'serve', '--data', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
          let out = '';
          child.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            if (out.includes('listening at') && child.exitCode === null && !child.killed) child.kill(signal);
          });
          child.stderr.on('data', (d: Buffer) => (out += d.toString()));
          const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
          const [code, killedBy] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
          clearTimeout(timer);
          assert.ok(out.includes('listening at'), out);
          assert.deepEqual({ code, killedBy }, { code: 0, killedBy: null }, `run ${i + 1}: ${signal} right after the URL line:\n${out}`);
          assert.equal(existsSync(join(dataDir, 'hub.lock')), false, 'the lock is released');
        } finally {
          removeDir(dataDir);
        }
      }
    });
  }

  test('a second serve on the same data dir is refused with a message naming the dir', async () => {
    const hub = await startHub();
    try {
      const tokenBefore = readFileSync(join(hub.dataDir, 'access-token'), 'utf8');
      const second = await runCli(['serve', '--data', hub.dataDir, '--port', '0']);
      assert.equal(second.timedOut, false, `the second hub kept running:\n${second.stdout}${second.stderr}`);
      assert.notEqual(second.code, 0);
      assert.ok(second.stderr.includes(hub.dataDir), `the message names the data dir: ${second.stderr}`);
      assert.doesNotMatch(second.stdout, /listening at/);
      // The first hub is untouched.
      assert.equal((await hub.fetch('/health')).status, 200);
      assert.equal(readFileSync(join(hub.dataDir, 'access-token'), 'utf8'), tokenBefore, 'access-token not rewritten');
      assert.equal(existsSync(join(hub.dataDir, 'hub.lock')), true, 'the first hub keeps its lock');
    } finally {
      assert.equal(await hub.stop(), 0);
      removeDir(hub.dataDir);
    }
  });

  test('two serves started at once on the same data dir: exactly one runs', async () => {
    const dataDir = tempDir();
    try {
      const results = await Promise.allSettled([startHub({ dataDir }), startHub({ dataDir })]);
      const running = results.filter((r): r is PromiseFulfilledResult<HubProcess> => r.status === 'fulfilled').map((r) => r.value);
      for (const h of running) await h.stop();
      assert.equal(running.length, 1, `${running.length} hubs ran on one data dir`);
    } finally {
      removeDir(dataDir);
    }
  });

  test('a port in use -> non-zero exit and a message mentioning the port', async () => {
    const hub = await startHub();
    const otherDir = tempDir();
    try {
      const port = portOf(hub);
      const res = await runCli(['serve', '--data', otherDir, '--port', String(port)]);
      assert.equal(res.timedOut, false, `the second hub kept running:\n${res.stdout}${res.stderr}`);
      assert.notEqual(res.code, 0);
      assert.ok(res.stderr.includes(String(port)), `the message mentions port ${port}: ${res.stderr}`);
      assert.match(res.stderr, /in use/i);
      assert.doesNotMatch(res.stderr, /^\s+at /m, 'no stack trace');
      assert.equal(existsSync(join(otherDir, 'hub.lock')), false, 'the failed hub released its lock');
      assert.equal((await hub.fetch('/health')).status, 200, 'the first hub still serves');
    } finally {
      assert.equal(await hub.stop(), 0);
      removeDir(hub.dataDir);
      removeDir(otherDir);
    }
  });

  test('DATAHUB_DATA selects the default data dir', async () => {
    const dataDir = tempDir();
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATAHUB_DATA: dataDir } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL line in 20 s:\n${out}`)), 20_000);
        child.stdout.on('data', () => {
          const m = /listening at (http:\/\/\S+)\/api/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`exited with ${code}:\n${out}`));
        });
      });
      assert.ok(out.includes(dataDir), `the line names ${dataDir}: ${out}`);
      const token = readFileSync(join(dataDir, 'access-token'), 'utf8').trim();
      assert.ok(existsSync(join(dataDir, 'hub.db')));
      const res = await fetch(`${url}/api/pipes`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200, 'the token in $DATAHUB_DATA/access-token works');
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
      assert.equal(await exited, 0);
      removeDir(dataDir);
    }
  });

  test('--data on the command line wins over DATAHUB_DATA', async () => {
    const envDir = tempDir();
    const hub = await startHub({ env: { DATAHUB_DATA: envDir } });
    try {
      assert.ok(existsSync(join(hub.dataDir, 'access-token')));
      assert.equal(existsSync(join(envDir, 'access-token')), false);
    } finally {
      await hub.stop();
      removeDir(hub.dataDir);
      removeDir(envDir);
    }
  });
});

describe('datahub argument errors and help', () => {
  test('--port abc -> exit 2 and a one-line message', async () => {
    const dataDir = tempDir();
    try {
      const res = await runCli(['serve', '--port', 'abc', '--data', dataDir]);
      assert.equal(res.timedOut, false);
      assert.equal(res.code, 2, res.stderr);
      assert.equal(lines(res.stderr).length, 1, `one line: ${JSON.stringify(res.stderr)}`);
      assert.match(res.stderr, /--port/);
      assert.match(res.stderr, /abc/);
      assert.equal(res.stdout, '');
    } finally {
      removeDir(dataDir);
    }
  });

  for (const bad of ['', '-1', '65536', '1.5', '0x10', '1e3', ' 80', '80abc']) {
    test(`--port ${JSON.stringify(bad)} -> exit 2`, async () => {
      const dataDir = tempDir();
      try {
        // A run that starts a server instead is killed after the timeout and fails here.
        const res = await runCli(['serve', '--port', bad, '--data', dataDir], { timeoutMs: 8_000 });
        assert.equal(res.timedOut, false, `--port ${JSON.stringify(bad)} started a hub:\n${res.stdout}`);
        assert.equal(res.code, 2, res.stderr);
        assert.equal(lines(res.stderr).length, 1, res.stderr);
        assert.match(res.stderr, /--port/);
      } finally {
        removeDir(dataDir);
      }
    });
  }

  test('an unknown command -> exit 2 naming it', async () => {
    const res = await runCli(['frobnicate']);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /frobnicate/);
    assert.equal(lines(res.stderr).length, 1, res.stderr);
  });

  test('an unknown option -> exit 2', async () => {
    const dataDir = tempDir();
    try {
      const res = await runCli(['serve', '--data', dataDir, '--bogus'], { timeoutMs: 8_000 });
      assert.equal(res.timedOut, false);
      assert.equal(res.code, 2);
      assert.match(res.stderr, /--bogus/);
    } finally {
      removeDir(dataDir);
    }
  });

  for (const args of [['help'], ['--help'], []]) {
    test(`datahub ${args.join(' ') || '(no arguments)'} prints usage`, async () => {
      const res = await runCli(args);
      assert.equal(res.code, 0);
      assert.match(res.stdout, /Usage/);
      for (const word of ['serve', '--data', '--port', '--host', 'user add', 'DATAHUB_DATA']) assert.ok(res.stdout.includes(word), `usage mentions ${word}`);
      assert.equal(res.stderr, '');
    });
  }
});

describe('datahub --help per command, --version and exit codes', () => {
  const commands: Array<[string[], string[]]> = [
    [['serve'], ['datahub serve', '--data', '--port', '--host', '--workspace']],
    [['start'], ['datahub start', '--workspace']],
    [['user'], ['datahub user add', 'datahub user remove', '--email']],
    [['login-url'], ['datahub login-url']],
    [['dtl'], ['datahub dtl eval', 'datahub dtl run', '--rules']],
    [['test'], ['datahub test', '--update', '--max-rounds']],
    [['run'], ['datahub run', '--max-rounds']],
    [['dtl', 'eval'], ['datahub dtl eval']],
  ];
  for (const [command, words] of commands) {
    test(`datahub ${command.join(' ')} --help prints that command's usage and exits 0`, async () => {
      const dataDir = tempDir();
      try {
        // --data points at a temp dir: were --help ignored, serve/start would start a hub (and time out here).
        const res = await runCli([...command, '--help', '--data', dataDir], { timeoutMs: 8_000 });
        assert.equal(res.timedOut, false, `started instead of printing help:\n${res.stdout}`);
        assert.equal(res.code, 0, res.stderr);
        assert.equal(res.stderr, '');
        for (const word of words) assert.ok(res.stdout.includes(word), `usage mentions ${word}:\n${res.stdout}`);
        // Only that command: the usage of another is not there.
        const other = command[0] === 'serve' ? 'datahub login-url' : 'datahub serve';
        assert.ok(!res.stdout.includes(other), `no ${other} in:\n${res.stdout}`);
        assert.match(res.stdout, /Exit codes:/);
        assert.equal(existsSync(join(dataDir, 'access-token')), false, 'no hub ran on the data dir');
      } finally {
        removeDir(dataDir);
      }
    });
  }

  test('-h works like --help, and "datahub help <command>" too', async () => {
    const short = await runCli(['test', '-h']);
    assert.equal(short.code, 0, short.stderr);
    assert.match(short.stdout, /datahub test \[<project dir>\]/);
    const viaHelp = await runCli(['help', 'test']);
    assert.equal(viaHelp.stdout, short.stdout);
    const unknown = await runCli(['help', 'frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /frobnicate/);
  });

  test('an argument after -- is not a help request', async () => {
    const res = await runCli(['dtl', 'eval', '--', '--help']);
    assert.notEqual(res.code, 0);
    assert.doesNotMatch(res.stdout, /Usage/);
  });

  test('a usage error points at the command\'s own help', async () => {
    const res = await runCli(['user', 'add']);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /--email is required \(run "datahub user --help" for usage\)/);
  });

  for (const flag of ['--version', '-v']) {
    test(`datahub ${flag} prints the version of package.json`, async () => {
      const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string };
      const res = await runCli([flag]);
      assert.equal(res.code, 0);
      assert.equal(res.stdout, `datahub ${version}\n`);
      assert.equal(res.stderr, '');
    });
  }

  test('the full usage lists every command and the exit codes the CLI reference documents', async () => {
    const res = await runCli(['--help']);
    for (const word of ['datahub serve', 'datahub start', 'datahub user add', 'datahub login-url', 'datahub dtl eval', 'datahub test', 'datahub run', '--version']) {
      assert.ok(res.stdout.includes(word), `usage mentions ${word}`);
    }
    const reference = readFileSync(join(REPO, 'docs', 'cli.md'), 'utf8');
    for (const code of ['0', '1', '2']) {
      assert.match(res.stdout, new RegExp(`^  ${code}  \\S`, 'm'), `usage explains exit code ${code}`);
      assert.match(reference, new RegExp(`^\\| ${code} \\|`, 'm'), `docs/cli.md's exit code table has ${code}`);
    }
  });
});

describe('datahub start without an Electron binary', () => {
  test('says so in one line and runs the hub for a browser instead of crashing', async () => {
    const dataDir = tempDir('datahub-start-');
    const child = spawn(process.execPath, [CLI, 'start', '--data', dataDir, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL line:\n${out}`)), 20_000);
        child.stdout.on('data', () => {
          const m = /API listening at (http:\/\/\S+)\/api/.exec(out);
          if (m && /one-time link/.test(out)) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        child.on('exit', (code) => reject(new Error(`start exited with ${code}:\n${out}`)));
      });
      assert.match(out, /No Electron binary/);
      assert.match(out, /one-time link: http:\/\/127\.0\.0\.1:\d+\/login\?code=/);
      assert.equal((await fetch(`${url}/api/health`)).status, 200);
      // Without --workspace, start opens the sample workspace (a copy in the data dir the user may edit).
      const token = readFileSync(join(dataDir, 'access-token'), 'utf8').trim();
      const pipes = (await (await fetch(`${url}/api/pipes`, { headers: { authorization: `Bearer ${token}` } })).json()) as { _id: string }[];
      assert.ok(pipes.some((p) => p._id === 'people-enriched'), `sample pipes loaded: ${JSON.stringify(pipes.map((p) => p._id))}`);
      assert.ok(existsSync(join(dataDir, 'sample-workspace', 'node', 'pipes', 'people.conf.json')));
      const ui = await fetch(`${url}/`);
      assert.equal(ui.status, 200);
      assert.match(await ui.text(), /<div id="app">/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      removeDir(dataDir);
    }
  });
});

