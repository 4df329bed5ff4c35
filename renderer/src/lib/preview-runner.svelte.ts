// Asks the hub for the preview of a pipe draft (POST /pipes/<id>/preview), debounced while typing: only the answer
// to the latest request is kept (a slower, older answer is dropped), and `computing` says a newer one is on its way.
import type { PipePreview } from '../../../hub-core/preview/index';
import { api, json } from './api';
import { encode, errorText } from './format';

export type { PipePreview };
export const PREVIEW_DEBOUNCE_MS = 300;

export class PreviewRunner {
  result = $state<PipePreview | null>(null);
  /** A request is waiting for its debounce or its answer. */
  computing = $state(false);
  error = $state<string | null>(null);
  /** The request the shown result answers (its JSON), to skip asking again for the same. */
  #shown: string | null = null;
  #seq = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly pipeId: string) {}

  /** Ask for this body after the debounce; a newer call replaces a pending one. */
  schedule(body: unknown, delay = PREVIEW_DEBOUNCE_MS): void {
    const text = JSON.stringify(body);
    clearTimeout(this.#timer);
    if (text === this.#shown && this.error === null) {
      // Back to what is shown: an older request still under way must not replace it.
      this.#seq++;
      this.computing = false;
      return;
    }
    this.computing = true;
    this.#timer = setTimeout(() => void this.run(text), delay);
  }

  /** Ask now (a button press), even for the same body. */
  refresh(body: unknown): void {
    clearTimeout(this.#timer);
    this.computing = true;
    void this.run(JSON.stringify(body));
  }

  /** A problem on this side (the text does not parse): nothing to ask; what is shown stays. */
  idle(): void {
    clearTimeout(this.#timer);
    this.#seq++;
    this.computing = false;
  }

  private async run(text: string): Promise<void> {
    const mine = ++this.#seq;
    try {
      const result = await api<PipePreview>(`/pipes/${encode(this.pipeId)}/preview`, { ...json('POST', null), body: text });
      if (mine !== this.#seq) return;
      this.result = result;
      this.#shown = text;
      this.error = null;
    } catch (e) {
      if (mine !== this.#seq) return;
      this.error = errorText(e, 'The preview');
    } finally {
      if (mine === this.#seq) this.computing = false;
    }
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#seq++;
  }
}

/** The part of a pipe draft a preview follows (see pipe-draft.svelte.ts). */
export interface PreviewSource {
  readonly id: string;
  sampleMode: 'source' | 'custom';
  sampleText: string;
  readonly sampleSize: number;
  useSource(size: number): void;
  previewBody(): { ok: true; body: unknown } | { ok: false; problem: string };
}

/**
 * A runner that follows the draft for the life of the calling component: every change of the draft or its sample
 * asks again (debounced); a sample read from the source is shown as the sample text. Call during component setup.
 */
export function followDraft(
  draft: PreviewSource,
  /** Added to every request, e.g. {trace: true}. */
  extra: Record<string, unknown> = {},
): {
  runner: PreviewRunner;
  problem: () => string | null;
  /** Read the sample from the source again, `size` entities (answers the size the draft settled on). */
  loadFromSource: (size: number) => number;
} {
  const runner = new PreviewRunner(draft.id);
  let problem = $state<string | null>(null);
  $effect(() => {
    const b = draft.previewBody();
    problem = b.ok ? null : b.problem;
    if (b.ok) runner.schedule({ ...(b.body as object), ...extra });
    else runner.idle();
  });
  $effect(() => {
    const r = runner.result;
    if (r && r.sample === 'source' && draft.sampleMode === 'source') {
      const text = JSON.stringify(r.stages.source, null, 2);
      if (draft.sampleText !== text) draft.sampleText = text;
    }
  });
  $effect(() => () => runner.dispose());
  const loadFromSource = (size: number): number => {
    draft.useSource(size);
    const b = draft.previewBody();
    if (b.ok) runner.refresh({ ...(b.body as object), ...extra });
    return draft.sampleSize;
  };
  return { runner, problem: () => problem, loadFromSource };
}
