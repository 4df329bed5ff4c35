// Limits that keep one client from taking the hub down: body size, stalled uploads, password guessing, deep JSON.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startHub, removeDir, type HubProcess } from '../../helpers/hub-process.js';

async function expectJsonError(res: Response, status: number, what: string): Promise<{ error: string; detail: string | null }> {
  const text = await res.text();
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status}: ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { error: string; detail: string | null };
  assert.equal(typeof body.error, 'string', `${what}: a JSON error with a message`);
  return body;
}

let hub: HubProcess;

before(async () => {
  hub = await startHub();
});

after(async () => {
  if (hub) {
    await hub.stop();
    removeDir(hub.dataDir);
  }
});

describe('request bodies', () => {
  test('the default body limit is 64 MB: a larger push is refused with 413, nothing written', async () => {
    const entity = JSON.stringify({ _id: 'x', pad: 'y'.repeat(1000) });
    const count = Math.ceil((65 * 1024 * 1024) / (entity.length + 1));
    const body = '[' + Array.from({ length: count }, (_, i) => entity.replace('"x"', `"e${i}"`)).join(',') + ']';
    const res = await hub.fetch('/datasets/big/entities', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    // The hub reads the rest of the body before it answers, so a client still sending gets the 413, not a broken pipe.
    const err = await expectJsonError(res, 413, 'a 65 MB push');
    assert.match(err.detail ?? '', /67108864 bytes/);
    assert.equal((await hub.fetch('/datasets/big')).status, 404, 'nothing was written');
  });

  test('JSON nested 5,000 deep is a 400, for entities and for DTL', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const entities = await hub.fetch('/datasets/deep/entities', {
      method: 'POST',
      body: `[{"_id": "a", "v": ${deep}}]`,
      headers: { 'content-type': 'application/json' },
    });
    const e1 = await expectJsonError(entities, 400, 'deep entity');
    assert.match(e1.detail ?? '', /nested/);
    const object = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
    const dtl = await hub.fetch('/dtl/preview', {
      method: 'POST',
      body: `{"transform": {"_id": "t", "type": "dtl", "rules": {"default": [["add", "x", ${deep}]]}}, "entities": [{"_id": "a", "o": ${object}}]}`,
      headers: { 'content-type': 'application/json' },
    });
    const e2 = await expectJsonError(dtl, 400, 'deep DTL');
    assert.match(e2.detail ?? '', /nested/);
    assert.equal((await hub.fetch('/health')).status, 200);
  });

  test('a stalled upload is answered 408 and closed after the request timeout', async () => {
    // A hub of its own with a short timeout: a large body sent to the shared one may take longer than that on a busy machine.
    const hub = await startHub({ args: ['--request-timeout', '2'] });
    after(async () => {
      await hub.stop();
      removeDir(hub.dataDir);
    });
    const { port } = new URL(hub.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /api/datasets/stalled/entities HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${hub.token}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n[{"_id": "a"',
        );
      });
      let got = '';
      socket.on('data', (d: Buffer) => (got += d.toString()));
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 408/, `the hub closes the connection with 408: ${answer.slice(0, 200)}`);
    assert.equal((await hub.fetch('/datasets/stalled')).status, 404, 'nothing was written');
  });
});

describe('POST /api/jwt', () => {
  const email = 'guess@example.com';
  const password = 'the right password';

  before(async () => {
    await hub.json(`/users/${encodeURIComponent(email)}`, { method: 'PUT', json: { password } });
  });

  test('40 parallel wrong logins: the hub keeps answering other requests, and guessing is limited with 429', async () => {
    const attempts = Array.from({ length: 40 }, (_, i) =>
      fetch(`${hub.api}/jwt`, { method: 'POST', body: new URLSearchParams({ email, password: `wrong ${i}` }) }).then(async (res) => {
        return { status: res.status, body: (await res.json()) as { error: string; detail: string | null } };
      }),
    );
    const health = fetch(`${hub.api}/health`).then((res) => res.status);
    const results = await Promise.all(attempts);
    assert.equal(await health, 200);
    const statuses = results.map((r) => r.status);
    assert.ok(statuses.every((s) => s === 401 || s === 429), `only 401 and 429: ${statuses.join(',')}`);
    assert.ok(statuses.includes(429), 'guessing is limited');
    const limited = results.find((r) => r.status === 429)!;
    assert.match(limited.body.error, /too many/);
    // Guessing on, one at a time: after 10 wrong passwords within a minute the account answers 429.
    let wrong = statuses.filter((s) => s === 401).length;
    for (let i = 0; wrong <= 10; i++) {
      const res = await fetch(`${hub.api}/jwt`, { method: 'POST', body: new URLSearchParams({ email, password: `again ${i}` }) });
      if (res.status === 429) {
        assert.match((await expectJsonError(res, 429, 'limited')).error, /too many failed logins/);
        break;
      }
      await expectJsonError(res, 401, 'a wrong password');
      wrong++;
    }
    assert.equal(wrong, 10, 'exactly 10 wrong passwords are checked per account and minute');
    // The limit holds for the right password too, until the minute has passed.
    const right = await fetch(`${hub.api}/jwt`, { method: 'POST', body: new URLSearchParams({ email, password }) });
    await expectJsonError(right, 429, 'the right password while the account is limited');
  });

  test('another account is not limited by the guesses at the first', async () => {
    const other = 'other@example.com';
    await hub.json(`/users/${encodeURIComponent(other)}`, { method: 'PUT', json: { password } });
    const res = await fetch(`${hub.api}/jwt`, { method: 'POST', body: new URLSearchParams({ email: other, password }) });
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(await res.text(), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  });
});
