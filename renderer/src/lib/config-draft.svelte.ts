// An unsaved draft of one stored configuration entity (a pipe or a system): its text, the saved text, the hub's
// verdict, and saving with the hub's config-errors ("Save anyway" when the hub refuses them). Editors bind to a
// draft instead of holding the text themselves, so that several views of one entity share the same unsaved edits.
import type { ConfigError } from '../../../hub-core/pipes/index';
import type { JsonObject } from '../../../hub-core/base/index';
import { HubRequestError } from './api';
import { errorText } from './format';
import { fileText, ifHolds, storedFileText } from './config-file';
import { parseExactJson } from './exact-json';

export interface LoadedConfig {
  config: unknown;
  errors: ConfigError[];
}

export interface DraftStore {
  load(): Promise<LoadedConfig>;
  /** Store the configuration; resolves to the hub's config-errors for what was stored. */
  save(config: JsonObject, force: boolean): Promise<ConfigError[]>;
}

/** Same JSON content (layout and whitespace aside): the hub stores JSON, not text. */
export function sameContent(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

/** The problems of a refused save ("<id>: <path>: <message>; ..."), as config-errors for the markers. */
export function refusedErrors(detail: string | null): ConfigError[] {
  if (!detail) return [];
  return detail
    .split(/; (?=[^;]*?: \$)/)
    .map((part) => /^.*?: (\$\S*): (.*)$/s.exec(part))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ elements: m[1]!, level: 'error' as const, msg: m[2]! }));
}

const time = (): string => new Date().toLocaleTimeString();

export class ConfigDraft {
  /** "pipe" or "system", for messages. */
  readonly kind: string;
  readonly id: string;
  private readonly store: DraftStore;
  /** Text of an entity not stored yet: it starts unsaved. */
  private readonly initial: string | undefined;
  /** The text being edited. */
  text = $state('');
  /** The text as stored (the file's text on this computer, else two-space JSON), null until loaded or for an entity not stored yet. */
  savedText = $state<string | null>(null);
  /** The hub's config-errors for the stored version (or for a refused save). */
  hubErrors = $state<ConfigError[]>([]);
  loadError = $state<string | null>(null);
  message = $state<{ text: string; bad: boolean } | null>(null);
  saving = $state(false);
  /** The hub refused the last save for config-errors: it may be stored anyway. */
  offerForce = $state(false);
  /** Why the draft cannot be saved as it is, beyond its text (e.g. an editor elsewhere holds invalid JSON). */
  blocker = $state<string | null>(null);
  /** Called after every successful save. */
  onSaved: ((config: JsonObject) => void) | undefined;
  /** Called after a revert, so views that hold text of their own (the Preview tab's transform) drop it too. */
  onReverted: (() => void) | undefined;

  get isNew(): boolean {
    return this.initial !== undefined && this.savedText === null;
  }
  readonly dirty = $derived(this.isNew || this.blocker !== null || (this.savedText !== null && !sameContent(this.text, this.savedText)));
  readonly ready = $derived(this.isNew || this.savedText !== null);

  constructor(kind: string, id: string, store: DraftStore, initial?: string) {
    this.kind = kind;
    this.id = id;
    this.store = store;
    this.initial = initial;
  }

  async reload(): Promise<void> {
    if (this.initial !== undefined) {
      this.text = this.initial;
      return;
    }
    try {
      // The configuration and its file's text are read together (one wait, not two).
      const [loaded, file] = await Promise.all([this.store.load(), storedFileText(this.kind, this.id)]);
      this.savedText = ifHolds(file, loaded.config) ?? JSON.stringify(loaded.config, null, 2);
      this.text = this.savedText;
      this.hubErrors = loaded.errors;
      this.loadError = null;
    } catch (e) {
      this.loadError = errorText(e, `Reading the ${this.kind} configuration`);
    }
  }

  /** An edit of the text: what the last save or revert said no longer describes it (unless it was a failure). */
  edit(text: string): void {
    this.text = text;
    if (this.message && !this.message.bad && !this.saving) this.message = null;
  }

  /** The message for the dirty guard, or null when nothing would be lost. */
  unsavedMessage(): string | null {
    return this.dirty ? `The ${this.kind} "${this.id}" has unsaved changes.` : null;
  }

  async save(force = false): Promise<void> {
    if (this.saving) return;
    if (this.blocker !== null) {
      this.message = { text: `Not saved: ${this.blocker}`, bad: true };
      return;
    }
    let config: unknown;
    try {
      config = parseExactJson(this.text);
    } catch (e) {
      this.message = { text: `Not saved: the text is not valid JSON (${e instanceof Error ? e.message : String(e)}).`, bad: true };
      return;
    }
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      this.message = { text: `Not saved: a ${this.kind} configuration is a JSON object.`, bad: true };
      return;
    }
    this.saving = true;
    this.message = { text: 'Saving…', bad: false };
    const sent = this.text;
    try {
      const errors = await this.store.save(config as JsonObject, force);
      // The editor shows what the file now holds (a remote instance: two-space JSON), unless typing went on.
      const stored = (await fileText(this.kind, this.id, config)) ?? JSON.stringify(config, null, 2);
      this.savedText = stored;
      if (this.text === sent) this.text = stored;
      this.hubErrors = errors;
      this.offerForce = false;
      const problems = errors.length;
      this.message = {
        text: problems === 0 ? `Saved at ${time()}.` : `Saved at ${time()}; the hub reports ${problems} problem${problems === 1 ? '' : 's'} (see the markers).`,
        bad: errors.some((e) => e.level === 'error'),
      };
      this.onSaved?.(config as JsonObject);
    } catch (e) {
      const refused = e instanceof HubRequestError && e.info.status === 400 ? refusedErrors(e.info.detail) : [];
      this.hubErrors = refused;
      this.offerForce = refused.length > 0;
      this.message = { text: `Not saved. ${errorText(e, 'Saving')}`, bad: true };
    } finally {
      this.saving = false;
    }
  }

  revert(): void {
    if (this.savedText === null) return;
    this.text = this.savedText;
    this.blocker = null;
    this.message = { text: 'Reverted to the saved version.', bad: false };
    this.offerForce = false;
    this.onReverted?.();
  }
}
