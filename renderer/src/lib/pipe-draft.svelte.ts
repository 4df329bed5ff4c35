// One shared, unsaved draft per open pipe: the whole configuration text (the Config tab edits it), the transform part
// of it (the Preview tab edits that), and the preview's sample settings. An edit in either tab is at once part of the
// one draft, which lives as long as the pipe page: switching tabs loses nothing, the dirty guard covers it, and
// saving stores it from wherever Ctrl/Cmd+S was pressed.
import { applyEdits, findNodeAtLocation, modify, parseTree } from 'jsonc-parser';
import type { ConfigError } from '../../../hub-core/pipes/index';
import type { JsonObject } from '../../../hub-core/base/index';
import type { PipeStage } from '../../../hub-core/preview/index';
import { api, json } from './api';
import { encode } from './format';
import { ConfigDraft, type LoadedConfig } from './config-draft.svelte';
import { parseExactJson } from './exact-json';

/** What a pipe without a transform starts from when one is added in the preview: copy everything. */
export const STARTER_TRANSFORM = { type: 'dtl', rules: { default: [['copy', '*']] } };
export const DEFAULT_SAMPLE_SIZE = 10;
export const MAX_SAMPLE_SIZE = 1000;

type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: parseExactJson(text) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Where the configuration text holds its `transform` value: the value's range and the indent of the line its key is
 * on (the lines after the first carry it). Null when the text has no transform or does not parse.
 */
function transformSpan(text: string): { start: number; end: number; indent: string } | null {
  const tree = parseTree(text);
  const node = tree ? findNodeAtLocation(tree, ['transform']) : undefined;
  if (!node) return null;
  const keyAt = node.parent?.offset ?? node.offset;
  const lineStart = text.lastIndexOf('\n', keyAt - 1) + 1;
  const indent = /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? '';
  return { start: node.offset, end: node.offset + node.length, indent };
}

/** The transform as the file has it (its own line breaks and spacing), its key's indent taken off; null: none. */
export function transformTextOf(text: string): string | null {
  const span = transformSpan(text);
  if (!span) return null;
  return text
    .slice(span.start, span.end)
    .split('\n')
    .map((line, i) => (i > 0 && line.startsWith(span.indent) ? line.slice(span.indent.length) : line))
    .join('\n');
}

/** The configuration text with its transform replaced by `transform` as typed (indented like the key); null: none. */
export function withTransformText(text: string, transform: string): string | null {
  const span = transformSpan(text);
  if (!span) return null;
  const placed = transform
    .trim()
    .split('\n')
    .map((line, i) => (i > 0 && line !== '' ? span.indent + line : line))
    .join('\n');
  return text.slice(0, span.start) + placed + text.slice(span.end);
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

interface PipeInfo {
  config: { original: JsonObject };
  runtime: { 'config-errors'?: ConfigError[] };
}

/** The body of POST /pipes/<id>/preview for the draft, or why there is none. */
export type PreviewBody = { ok: true; body: { config: JsonObject; entities?: unknown[]; limit: number } } | { ok: false; problem: string };

export class PipeDraft {
  readonly config: ConfigDraft;
  /** The transform as the Preview tab shows it (its own layout); '' when the pipe has none. */
  transformText = $state('');
  /** Why `transformText` is not part of the draft yet (it is not valid JSON), else null. */
  transformError = $state<string | null>(null);

  /** The preview's sample: read from the source (up to `sampleSize`), or the user's own entities. */
  sampleMode = $state<'source' | 'custom'>('source');
  sampleSize = $state(DEFAULT_SAMPLE_SIZE);
  /** The custom sample as typed; in source mode, the entities the source gave last. */
  sampleText = $state('');
  /** The stage the preview shows. */
  stage = $state<PipeStage>('after-transforms');

  /** The JSON of the transform that the preview text and the configuration last agreed on. */
  #synced: string | null = null;
  #lastValid: JsonObject | null = null;

  /** The configuration text parsed: the object, or why it is not one. */
  readonly parsed = $derived.by((): { value: JsonObject | null; error: string | null } => {
    const p = parseJson(this.config.text);
    if (!p.ok) return { value: null, error: `The configuration is not valid JSON: ${p.error}` };
    if (!isObject(p.value)) return { value: null, error: 'The configuration must be a JSON object.' };
    return { value: p.value, error: null };
  });

  /** The latest configuration text that parsed (null before any did): what the transform text follows. */
  readonly current = $derived.by((): JsonObject | null => {
    const v = this.parsed.value;
    if (v !== null) this.#lastValid = v;
    return this.#lastValid;
  });

  constructor(readonly id: string) {
    const path = `/pipes/${encode(id)}`;
    this.config = new ConfigDraft('pipe', id, {
      async load(): Promise<LoadedConfig> {
        const info = await api<PipeInfo>(path);
        return { config: info.config.original, errors: info.runtime['config-errors'] ?? [] };
      },
      async save(config, force): Promise<ConfigError[]> {
        const info = await api<PipeInfo>(`${path}/config${force ? '?force=true' : ''}`, json('PUT', config));
        return info.runtime['config-errors'] ?? [];
      },
    });
    // A revert drops every edit, also a transform text in the Preview tab that never reached the configuration
    // (not valid JSON): the text follows the saved configuration again, whatever it last agreed on.
    this.config.onReverted = () => {
      this.#synced = null;
      this.syncTransform();
    };
  }

  /** Bring the preview's transform text in line with the configuration when the transform changed there. */
  syncTransform(): void {
    const config = this.current;
    if (config === null) return;
    const transform = config['transform'];
    const key = transform === undefined ? '' : JSON.stringify(transform);
    // The file's own layout when the text at hand holds this transform; printed only when it does not.
    const own = this.parsed.value !== null ? transformTextOf(this.config.text) : null;
    if (key === this.#synced) {
      // The same transform, but the file's text arrived after a printed one (the Config draft reads the file after
      // the configuration): show the file's layout, unless the user has typed in the Preview tab since.
      if (own !== null && this.transformText === this.#shown && own !== this.transformText) this.#show(own);
      return;
    }
    this.#synced = key;
    this.#show(transform === undefined ? '' : (own ?? JSON.stringify(transform, null, 2)));
    this.transformError = null;
    this.config.blocker = null;
  }

  /** The transform text last put in the Preview tab from the configuration (not typed there). */
  #shown: string | null = null;
  #show(text: string): void {
    this.transformText = text;
    this.#shown = text;
  }

  /** The Preview tab's edit of the transform: it becomes part of the draft configuration once it is valid JSON. */
  setTransformText(text: string): void {
    this.transformText = text;
    let value: unknown;
    if (text.trim() !== '') {
      const p = parseJson(text);
      if (!p.ok) {
        this.transformError = `The transform is not valid JSON: ${p.error}`;
        this.config.blocker = 'the transform edited in the Preview tab is not valid JSON.';
        return;
      }
      value = p.value;
    }
    const key = value === undefined ? '' : JSON.stringify(value);
    if (this.parsed.value === null) {
      this.transformError = `${this.parsed.error ?? 'The configuration is not valid JSON.'} Fix it in the Config tab first.`;
      this.config.blocker = 'the configuration is not valid JSON.';
      return;
    }
    this.transformError = null;
    this.config.blocker = null;
    if (key === this.#synced) return;
    this.#synced = key;
    // The transform goes in as typed (its layout kept); a new or removed one is placed by the JSON editor.
    const placed = value !== undefined ? withTransformText(this.config.text, text) : null;
    if (placed !== null) {
      this.config.edit(placed);
      return;
    }
    const edits = modify(this.config.text, ['transform'], value, { formattingOptions: { insertSpaces: true, tabSize: 2 } });
    this.config.edit(applyEdits(this.config.text, edits));
  }

  /** Start a transform for a pipe that has none. */
  addTransform(): void {
    this.setTransformText(JSON.stringify(STARTER_TRANSFORM, null, 2));
  }

  /** The user typed their own sample. */
  setSampleText(text: string): void {
    this.sampleText = text;
    this.sampleMode = 'custom';
  }

  /** Read the sample from the source again, `size` entities. */
  useSource(size: number): void {
    this.sampleSize = Math.min(MAX_SAMPLE_SIZE, Math.max(1, Math.floor(size) || DEFAULT_SAMPLE_SIZE));
    this.sampleMode = 'source';
  }

  /** What to ask the hub for: the draft configuration and the sample. */
  previewBody(): PreviewBody {
    const config = this.parsed.value;
    if (config === null) return { ok: false, problem: this.parsed.error ?? 'The configuration is not valid JSON.' };
    if (this.transformError !== null) return { ok: false, problem: this.transformError };
    if (this.sampleMode === 'source') return { ok: true, body: { config, limit: this.sampleSize } };
    const p = parseJson(this.sampleText.trim() === '' ? '[]' : this.sampleText);
    if (!p.ok) return { ok: false, problem: `The sample entities are not valid JSON: ${p.error}` };
    const entities = Array.isArray(p.value) ? p.value : [p.value];
    if (!entities.every(isObject)) return { ok: false, problem: 'The sample must be a JSON array of entity objects.' };
    if (entities.length > MAX_SAMPLE_SIZE) return { ok: false, problem: `The sample has ${entities.length} entities; the preview takes at most ${MAX_SAMPLE_SIZE}.` };
    return { ok: true, body: { config, entities, limit: this.sampleSize } };
  }
}
