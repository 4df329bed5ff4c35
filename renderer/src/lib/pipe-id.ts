// Why the hub would refuse a new pipe id, in words, before it is sent. The rule is the hub's
// (hub-core/config/config-settings.ts: 1 to 512 characters, no control characters (C0, DEL, C1) or lone surrogates, "/",
// "\", "?" or "#", since the id is part of the pipe's address /pipes/<id>), plus the ids already taken.
const MAX_LENGTH = 512;

export function pipeIdProblem(raw: string, taken: readonly string[]): string | null {
  const id = raw.trim();
  if (id === '') return 'Give the pipe an id.';
  if (/\s/.test(id)) return 'An id has no spaces.';
  if (id.length > MAX_LENGTH) return `An id has at most ${MAX_LENGTH} characters (this one has ${id.length}).`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(id)) return 'An id cannot hold control characters.';
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(id)) return 'An id cannot hold half of a character (a lone surrogate).';
  const bad = /[/\\?#]/.exec(id)?.[0];
  if (bad !== undefined) return `An id cannot hold “${bad}”: the id is part of the pipe’s address (/pipes/<id>).`;
  if (taken.includes(id)) return `A pipe “${id}” already exists; pick another id or open that pipe.`;
  return null;
}
