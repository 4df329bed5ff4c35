// A full JSON Pull read as a stream: counts the entities (occurrences of `"_id":`) and bytes, keeps nothing.

export interface PullCount {
  count: number;
  bytes: number;
  firstByteSeconds: number;
}

export async function pullCount(url: string, headers: Record<string, string>): Promise<PullCount> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  if (!res.ok || !res.body) throw new Error(`GET ${url} -> HTTP ${res.status}: ${(await res.text()).slice(0, 2000)}`);
  const reader = res.body.getReader();
  const needle = Buffer.from('"_id":');
  let count = 0;
  let bytes = 0;
  let firstByteSeconds = -1;
  let tail: Buffer = Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstByteSeconds < 0) firstByteSeconds = (performance.now() - t0) / 1000;
    const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    bytes += chunk.length;
    // "_id": cannot overlap itself, so a match across the boundary lies within 5 bytes either side of it.
    if (tail.length > 0) count += occurrences(Buffer.concat([tail, chunk.subarray(0, needle.length - 1)]), needle);
    count += occurrences(chunk, needle);
    tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - (needle.length - 1))));
  }
  return { count, bytes, firstByteSeconds };
}

function occurrences(buf: Buffer, needle: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(needle); i >= 0; i = buf.indexOf(needle, i + needle.length)) n++;
  return n;
}
