/**
 * Form bodies (`application/x-www-form-urlencoded`, e.g. the pump's operations) read as bytes and checked as JSON
 * bodies are (json-bytes.ts): bytes that are not UTF-8, raw or percent-encoded (`%FF`, `%ED%A0%80`), are a 400
 * naming the field instead of becoming U+FFFD or staying as the literal text "%FF".
 */
import { HubError } from '../../hub-core/base/index.js';
import { utf8Problem } from './json-bytes.js';

export type FormFields = Record<string, string | string[]>;

const HEX = /^[0-9a-fA-F]{2}$/;

/** One name or value: `+` is a space, `%XX` a byte; the bytes must be UTF-8. */
function decodePart(part: string, what: () => string): string {
  if (!part.includes('%') && !part.includes('+')) return part;
  const bytes: number[] = [];
  for (let i = 0; i < part.length; i++) {
    const c = part.charCodeAt(i);
    if (c === 0x25 /* % */ && HEX.test(part.slice(i + 1, i + 3))) {
      bytes.push(parseInt(part.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === 0x2b /* + */) bytes.push(0x20);
    else bytes.push(...Buffer.from(part[i]!, 'utf8'));
  }
  const data = Uint8Array.from(bytes);
  const problem = utf8Problem(data);
  if (problem) throw new HubError(400, 'malformed form', `${what()}: ${problem.replace('the body is not valid UTF-8: ', 'not valid UTF-8 once its %XX escapes are decoded: ')}`);
  return Buffer.from(data).toString('utf8');
}

/** The fields of a form body (a field sent twice is a list of its values), or a 400 for bytes that are not UTF-8. */
export function parseFormBody(body: Buffer): FormFields {
  const badBytes = utf8Problem(body);
  if (badBytes) throw new HubError(400, 'malformed form', badBytes);
  const fields: FormFields = Object.create(null) as FormFields;
  const text = body.toString('utf8');
  if (text === '') return fields;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = eq < 0 ? pair : pair.slice(0, eq);
    const name = decodePart(rawName, () => `the name of the form field ${JSON.stringify(rawName.slice(0, 60))}`);
    const value = decodePart(eq < 0 ? '' : pair.slice(eq + 1), () => `the form field ${JSON.stringify(name.slice(0, 60))}`);
    const had = fields[name];
    fields[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return fields;
}
