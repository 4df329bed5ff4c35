// Cutting a JSON array of entities in two without parsing it, so that two workers can parse the halves at once. One
// pass over the bytes up to a little past the middle follows strings (and their escapes) and brackets; the cut goes
// after the first entity that ends there at the array's own level and is followed by "," and "{". The halves are
// "[...}]" and "[{...]". A body that is not such an array (or breaks off) is not cut: it is parsed whole, as before.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;

function isSpace(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** The two halves of a JSON array body, or undefined when it is not an array of objects with a cut past its middle. */
export function splitEntityArray(data: Uint8Array): [Uint8Array, Uint8Array] | undefined {
  let start = 0;
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) start = 3;
  while (isSpace(data[start])) start++;
  if (data[start] !== OPEN_BRACKET) return undefined;
  const middle = start + ((data.length - start) >> 1);
  let depth = 0;
  let inString = false;
  for (let i = start; i < data.length; i++) {
    const b = data[i]!;
    if (inString) {
      if (b === BACKSLASH) i++;
      else if (b === QUOTE) inString = false;
      continue;
    }
    if (b === QUOTE) inString = true;
    else if (b === OPEN_BRACKET || b === OPEN_BRACE) depth++;
    else if (b === CLOSE_BRACKET) depth--;
    else if (b === CLOSE_BRACE) {
      depth--;
      if (depth !== 1 || i < middle) continue;
      // An entity of the array ends here: cut if another one follows.
      let j = i + 1;
      while (isSpace(data[j])) j++;
      if (data[j] !== COMMA) return undefined;
      j++;
      while (isSpace(data[j])) j++;
      if (data[j] !== OPEN_BRACE) return undefined;
      const head = new Uint8Array(i + 2 - start);
      head.set(data.subarray(start, i + 1));
      head[head.length - 1] = CLOSE_BRACKET;
      const tail = new Uint8Array(data.length - j + 1);
      tail[0] = OPEN_BRACKET;
      tail.set(data.subarray(j), 1);
      return [head, tail];
    }
    if (depth <= 0) return undefined;
  }
  return undefined;
}
