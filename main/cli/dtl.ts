// `datahub dtl ...`: evaluate DTL expressions and run DTL transforms from the command line.
//
//   datahub dtl eval '<expression JSON>' [--source '<entity JSON>']
//   datahub dtl eval --batch            JSON lines {"expr": ..., "source": ...} on stdin, one result per line out
//   datahub dtl run --rules <file> --input <file> [--lookup <file>] [--trace]
//   datahub dtl functions [<word>]      the function reference in words (--json: the catalogue as JSON)
//
// Results are printed as JSON with typed values in their tagged form ("~t...", "~:..."). Invalid input (bad JSON,
// DTL that does not compile, unknown options) exits with code 2 and one line on stderr; a DTL run that fails (e.g.
// "fail!") exits with code 1.

import { functionsText } from './dtl-functions.js';
import { DTL_USAGE } from './usage.js';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { canonicalJson, isJsonObject, type JsonObject, type JsonValue } from '../../hub-core/base/index.js';
import type { ConfigError } from '../../hub-core/base/index.js';
import {
  compileExpression,
  compileTracedTransform,
  DtlRuntimeError,
  MemoryLookup,
  compileTransform,
  encode,
  traceInWords,
  type CompiledExpression,
} from '../../hub-core/dtl/index.js';
import { readTextFile } from '../../hub-core/base/index.js';
import { parseConfigText, parseJson as parseExactJson } from '../../hub-core/base/index.js';


/** Bad input from the user: exit code 2. */
class InputError extends Error {}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

function describeErrors(errors: readonly ConfigError[]): string {
  return errors
    .filter((e) => e.level === 'error')
    .map((e) => `${e.elements}: ${e.msg}`)
    .join('; ');
}

function parseJson(text: string, what: string): JsonValue {
  try {
    // Integers beyond ±2^53 are read exactly, as the hub reads them (exact-json.ts).
    return parseExactJson(text) as JsonValue;
  } catch (e) {
    throw new InputError(`${what} is not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * DTL as JSON text, with its float literals kept as written, as the hub keeps them in a pipe's transform
 * (config-json.ts): ["is-float", 1.0] is true (hub/dtl/dtl-functions-numbers.rst), which JSON.parse would make 1.
 */
function parseDtlJson(text: string, what: string): JsonValue {
  parseJson(text, what);
  return (parseConfigText(`{"transform": ${text}}`) as { transform: JsonValue }).transform;
}

/** Plain JSON again: float literals kept by parseDtlJson become numbers (for entities, which are data). */
function plainJson(value: JsonValue | undefined): JsonValue | undefined {
  return value === undefined ? undefined : (parseExactJson(JSON.stringify(value)) as JsonValue);
}

function readJsonFile(path: string, what: string, dtl = false): JsonValue {
  let text: string;
  try {
    text = readTextFile(path);
  } catch (e) {
    throw new InputError(`cannot read ${what} ${JSON.stringify(path)}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return dtl ? parseDtlJson(text, `${what} ${JSON.stringify(path)}`) : parseJson(text, `${what} ${JSON.stringify(path)}`);
}

function compileOrThrow(expr: JsonValue): CompiledExpression {
  const compiled = compileExpression(expr);
  if (compiled.errors.some((e) => e.level === 'error')) throw new InputError(`invalid expression: ${describeErrors(compiled.errors)}`);
  return compiled;
}

async function evalCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    options: { source: { type: 'string' }, batch: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (values.batch === true) {
    if (positionals.length > 0 || values.source !== undefined) throw new InputError('--batch reads expressions from stdin; give no expression or --source');
    await evalBatch();
    return;
  }
  if (positionals.length !== 1) throw new InputError('give exactly one expression (as JSON), e.g. datahub dtl eval \'["upper", "_S.name"]\' --source \'{"name": "x"}\'');
  const expr = parseDtlJson(positionals[0] as string, 'the expression');
  const source = values.source === undefined ? {} : parseJson(values.source, '--source');
  const result = compileOrThrow(expr).evaluate({ source });
  process.stdout.write(JSON.stringify(encode(result)) + '\n');
}

async function evalBatch(): Promise<void> {
  const cache = new Map<string, CompiledExpression>();
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let out: JsonValue;
    try {
      const request = parseDtlJson(line, 'the line');
      if (!isJsonObject(request) || !('expr' in request)) throw new InputError('each line must be an object {"expr": ..., "source": ...}');
      const expr = request['expr'] as JsonValue;
      const key = canonicalJson(expr);
      let compiled = cache.get(key);
      if (compiled === undefined) {
        compiled = compileOrThrow(expr);
        if (cache.size > 10_000) cache.clear();
        cache.set(key, compiled);
      }
      out = encode(compiled.evaluate({ source: plainJson(request['source']) ?? {} }));
    } catch (e) {
      out = { error: oneLine(e instanceof Error ? e.message : String(e)) };
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  }
}

function runCommand(args: string[]): void {
  const { values, positionals } = parseArgs({
    args,
    options: { rules: { type: 'string' }, input: { type: 'string' }, lookup: { type: 'string' }, trace: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new InputError(`unexpected argument ${JSON.stringify(positionals[0])}`);
  if (values.rules === undefined || values.input === undefined) throw new InputError('dtl run needs --rules <file> and --input <file>');
  const spec = readJsonFile(values.rules, 'rules file', true);
  // A bare rules object ({"default": [...]}) is accepted as well as a transform or a list of transforms.
  const bare = isJsonObject(spec) && spec['type'] === undefined && spec['rules'] === undefined;
  const transform: JsonValue = bare ? { type: 'dtl', rules: spec } : spec;
  const input = readJsonFile(values.input, 'input file');
  if (!Array.isArray(input)) throw new InputError('the input file must hold a JSON array of entities');
  input.forEach((e, i) => {
    if (!isJsonObject(e)) throw new InputError(`entity #${i} of the input is not a JSON object`);
  });
  let lookup: MemoryLookup | undefined;
  if (values.lookup !== undefined) {
    const datasets = readJsonFile(values.lookup, 'lookup file');
    if (!isJsonObject(datasets) || !Object.values(datasets).every((d) => Array.isArray(d) && d.every(isJsonObject))) {
      throw new InputError('the lookup file must be an object {"<dataset>": [entities...]}');
    }
    lookup = new MemoryLookup(datasets as Record<string, JsonObject[]>);
  }
  if (values.trace === true) {
    runTraced(transform, input as JsonObject[], lookup, bare);
    return;
  }
  const compiled = compileTransform(transform, { configPath: '$', ...(lookup ? { lookup } : {}) });
  if (!compiled.ok) {
    const errors = bare ? compiled.errors.map((e) => ({ ...e, elements: e.elements.replace(/^\$\.rules/, '$') })) : compiled.errors;
    throw new InputError(`invalid DTL: ${describeErrors(errors)}`);
  }
  const out = compiled.runAll(input as JsonObject[]);
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
}

/** `dtl run --trace`: each entity's trace in words, then its output; the first failure ends the run (exit code 1). */
function runTraced(transform: JsonValue, input: readonly JsonObject[], lookup: MemoryLookup | undefined, bare: boolean): void {
  const compiled = compileTracedTransform(transform, { configPath: '$', ...(lookup ? { lookup } : {}) });
  if (!compiled.ok) {
    const errors = bare ? compiled.errors.map((e) => ({ ...e, elements: e.elements.replace(/^\$\.rules/, '$') })) : compiled.errors;
    throw new InputError(`invalid DTL: ${describeErrors(errors)}`);
  }
  for (const entity of input) {
    const { entities, trace, error } = compiled.run(entity);
    const lines = trace.entities.flatMap((t) => traceInWords(t));
    const text = bare ? lines.map((l) => l.replace(/\$\.rules/g, '$')) : lines;
    process.stdout.write(text.join('\n') + '\n');
    if (error) throw error;
    process.stdout.write(`  Output: ${JSON.stringify(entities)}\n\n`);
  }
}

/** Run `datahub dtl <args>`. Never throws: reports on stderr and sets the exit code instead. */
export async function dtlCommand(args: string[]): Promise<void> {
  try {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'eval':
        return await evalCommand(rest);
      case 'run':
        return runCommand(rest);
      case 'functions': {
        const { text, code } = functionsText(rest);
        process.stdout.write(text);
        if (code !== 0) process.exitCode = code;
        return;
      }
      case undefined:
      case 'help':
        process.stdout.write('Usage:\n' + DTL_USAGE);
        return;
      default:
        throw new InputError(`unknown dtl command ${JSON.stringify(sub)}; use eval, run or functions`);
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const usage = e instanceof InputError || err.code?.startsWith('ERR_PARSE_ARGS') === true;
    let message = err.message ?? String(e);
    if (e instanceof DtlRuntimeError) message = `${e.kind === 'error' || e.kind === 'unset-variable' ? 'DTL error' : e.kind}: ${e.message}${e.elements ? ` (at ${e.elements})` : ''}`;
    process.stderr.write(`datahub dtl: ${oneLine(message)}\n`);
    process.exitCode = usage ? 2 : 1;
  }
}
