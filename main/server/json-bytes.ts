/**
 * Checks of a JSON request body's bytes and text that JSON.parse would not make: bytes that are not UTF-8 (Node's
 * decoder turns them into U+FFFD without a word) and `\ud800`-style escapes of unpaired UTF-16 surrogates (text
 * that cannot be written as UTF-8, so SQLite, files and other clients would see something else).
 */
import { isUtf8 } from 'node:buffer';

/** The offset of the first byte of the first sequence that is not UTF-8 (surrogates and overlong forms included), or -1. */
export function invalidUtf8Offset(data: Uint8Array): number {
  // The native check is fast; the walk below only runs to say where.
  if (isUtf8(data)) return -1;
  const n = data.length;
  let i = 0;
  while (i < n) {
    const b = data[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f; // U+D800..U+DFFF encoded: surrogates are not UTF-8
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return i;
    const second = data[i + 1];
    if (second === undefined || second < lo || second > hi) return i;
    for (let k = 2; k <= need; k++) {
      const c = data[i + k];
      if (c === undefined || c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  // isUtf8 said no, the walk found nothing: should not happen; the start is the honest answer.
  return 0;
}

/** Words for the first byte sequence that is not UTF-8, or undefined when all of it is. */
export function utf8Problem(data: Uint8Array, base = 0): string | undefined {
  const at = invalidUtf8Offset(data);
  if (at < 0) return undefined;
  const bytes = Array.from(data.subarray(at, Math.min(data.length, at + 4)), (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
  return `the body is not valid UTF-8: byte offset ${base + at} (bytes ${bytes}); send text encoded as UTF-8`;
}

const hexValue = (text: string, at: number): number => {
  const h = text.slice(at, at + 4);
  return /^[0-9a-fA-F]{4}$/.test(h) ? parseInt(h, 16) : -1;
};

/**
 * Words for the first `\uXXXX` escape of an unpaired UTF-16 surrogate in a JSON text (in a property name or a
 * string value), or undefined. `namesOnly`: only property names count (entity values keep any string JSON allows).
 * The text came from valid UTF-8, so surrogates can only come from escapes.
 */
export function loneSurrogateProblem(text: string, namesOnly = false): string | undefined {
  if (!text.includes('\\u')) return undefined;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    if (text.charCodeAt(i) !== 0x22) continue;
    // A string: find its end and its first lone surrogate escape.
    const start = i;
    let lone = -1;
    let code = 0;
    for (i++; i < n; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x22) break;
      if (d !== 0x5c) continue;
      i++;
      if (text.charCodeAt(i) !== 0x75 /* u */) continue;
      const c = hexValue(text, i + 1);
      i += 4;
      if (c < 0xd800 || c > 0xdfff || lone >= 0) continue;
      if (c <= 0xdbff && text.charCodeAt(i + 1) === 0x5c && text.charCodeAt(i + 2) === 0x75) {
        const next = hexValue(text, i + 3);
        if (next >= 0xdc00 && next <= 0xdfff) {
          i += 6;
          continue;
        }
      }
      lone = i - 5;
      code = c;
    }
    if (lone < 0) continue;
    let j = i + 1;
    while (j < n && (text[j] === ' ' || text[j] === '\n' || text[j] === '\r' || text[j] === '\t')) j++;
    const isName = text[j] === ':';
    if (namesOnly && !isName) continue;
    const where = isName ? `the property name ${text.slice(start, Math.min(i + 1, start + 60))}` : 'a string value';
    return `${where} holds an unpaired UTF-16 surrogate (\\u${code.toString(16)}, at character ${lone}), which is not text that can be stored; send valid Unicode`;
  }
  return undefined;
}
