import { HubError } from '../../hub-core/base/index.js';

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

const isSpace = (c: number): boolean => c === SPACE || c === LF || c === CR || c === TAB;

type Mode = 'start' | 'array-first' | 'array-next' | 'after-array' | 'values' | 'after-value';

/**
 * Cuts a JSON body into its entities' texts as the bytes arrive, without parsing them: the elements of a top-level
 * array, or top-level objects one after another (JSON lines, or one object). It finds where each element ends (strings,
 * escapes and nesting counted; JSON's structural characters are ASCII, so bytes suffice) and hands over its bytes; the
 * element itself is parsed and checked by JSON.parse later, so what this does not look at (a number's form, a missing
 * colon) is still refused, with the parser's words. Only the element in progress is held.
 */
export class EntitySplitter {
  private mode: Mode = 'start';
  private parts: Buffer[] = [];
  private partBytes = 0;
  private inElement = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private seen = 0;
  private values = 0;
  private afterComma = false;

  /**
   * @param sequence top-level objects one after another are allowed (JSON lines); otherwise a body is one array or one object
   * @param elementLimit the largest entity, in bytes (413 beyond it)
   */
  constructor(
    private readonly sequence: boolean,
    private readonly elementLimit: number,
  ) {}

  /** The bytes of the elements that end in this chunk go to `out`. */
  push(chunk: Buffer, out: Buffer[]): void {
    let start = this.inElement ? 0 : -1;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      const c = chunk[i]!;
      if (this.inElement) {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (c === BACKSLASH) this.escaped = true;
          else if (c === QUOTE) this.inString = false;
          continue;
        }
        if (c === QUOTE) this.inString = true;
        else if (c === OPEN_OBJECT || c === OPEN_ARRAY) this.depth++;
        else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
          if (this.depth === 0) {
            // Only an array's closing bracket ends an element at depth 0 (anything else is for JSON.parse to refuse).
            if (this.mode === 'array-next' && c === CLOSE_ARRAY) {
              this.finish(chunk, start, i, out);
              this.mode = 'after-array';
            }
            continue;
          }
          this.depth--;
          if (this.depth === 0 && this.mode === 'values') {
            this.finish(chunk, start, i + 1, out);
            this.mode = this.sequence ? 'values' : 'after-value';
          }
        } else if (c === COMMA && this.depth === 0 && this.mode === 'array-next') {
          this.finish(chunk, start, i, out);
          this.mode = 'array-first';
          this.afterComma = true;
        }
        continue;
      }
      if (isSpace(c)) continue;
      switch (this.mode) {
        case 'start':
          if (c === OPEN_ARRAY) {
            this.mode = 'array-first';
            this.afterComma = false;
          } else if (c === OPEN_OBJECT) {
            this.mode = 'values';
            start = this.begin(i);
            this.depth = 1;
          } else throw malformed('the body must be a JSON array of entities (or one entity object)', this.seen + i);
          break;
        case 'array-first':
          if (c === CLOSE_ARRAY) {
            if (this.afterComma) throw malformed('a comma before the closing bracket of the array', this.seen + i);
            this.mode = 'after-array';
            break;
          }
          this.mode = 'array-next';
          start = this.begin(i);
          i--; // scan the first byte as part of the element
          break;
        case 'values':
          if (c !== OPEN_OBJECT) throw malformed('each line must be one JSON object (an entity)', this.seen + i);
          start = this.begin(i);
          this.depth = 1;
          break;
        case 'after-array':
          throw malformed('unexpected text after the array', this.seen + i);
        case 'after-value':
          throw malformed('more than one JSON value: send an array of entities (or JSON lines as application/x-ndjson)', this.seen + i);
        case 'array-next':
          break;
      }
    }
    if (this.inElement) this.keep(chunk.subarray(Math.max(0, start)));
    this.seen += n;
  }

  /** The body is over: anything left open is a truncated body. */
  end(): void {
    if (this.inElement || this.mode === 'array-first' || this.mode === 'array-next') {
      throw malformed('the body ends before its array (or last entity) is closed: was it cut off?', this.seen);
    }
    if (this.mode === 'start') throw new HubError(400, 'empty JSON body', 'send a JSON array of entities');
  }

  /** How many entities were cut so far. */
  get count(): number {
    return this.values;
  }

  private begin(i: number): number {
    this.inElement = true;
    this.inString = false;
    this.escaped = false;
    this.depth = 0;
    return i;
  }

  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.partBytes += bytes.length;
    if (this.partBytes > this.elementLimit) {
      throw new HubError(413, 'entity too large', `entity #${this.values} is larger than ${this.elementLimit} bytes, the largest one entity may be`);
    }
    this.parts.push(bytes);
  }

  private finish(chunk: Buffer, start: number, end: number, out: Buffer[]): void {
    const tail = chunk.subarray(Math.max(0, start), end);
    this.keep(tail);
    out.push(this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.partBytes));
    this.parts = [];
    this.partBytes = 0;
    this.inElement = false;
    this.values++;
  }
}

function malformed(what: string, at: number): HubError {
  return new HubError(400, 'malformed JSON', `${what} (at byte ${at})`);
}
