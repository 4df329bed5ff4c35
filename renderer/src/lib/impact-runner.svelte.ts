// The "Impact" of a pipe's unsaved draft: POST /pipes/<id>/impact starts the hub's computation (nothing is written),
// GET follows its progress until it ends, DELETE cancels it. One per pipe page.
import type { ImpactJob } from '../../../hub-core/preview/index';
import { api, json } from './api';
import { encode, errorText } from './format';

const POLL_MS = 300;

export class ImpactRunner {
  /** The job as the hub last reported it. */
  job = $state<ImpactJob | null>(null);
  /** Why the job could not start or be followed, in words. */
  error = $state<string | null>(null);
  /** The panel is shown. */
  open = $state(false);
  #timer: ReturnType<typeof setTimeout> | undefined;
  #generation = 0;

  constructor(readonly pipeId: string) {}

  get running(): boolean {
    return this.job?.status === 'running';
  }

  get path(): string {
    return `/pipes/${encode(this.pipeId)}/impact`;
  }

  /** Work out the impact of `config` (the draft configuration). */
  async start(config: unknown): Promise<void> {
    this.open = true;
    this.error = null;
    const generation = ++this.#generation;
    clearTimeout(this.#timer);
    try {
      this.job = await api<ImpactJob>(this.path, json('POST', config));
      this.#follow(generation);
    } catch (e) {
      this.job = null;
      this.error = errorText(e, 'Working out the impact');
    }
  }

  #follow(generation: number): void {
    this.#timer = setTimeout(() => {
      void (async () => {
        if (generation !== this.#generation) return;
        try {
          const job = await api<ImpactJob>(this.path);
          if (generation !== this.#generation) return;
          this.job = job;
          if (job.status === 'running') this.#follow(generation);
        } catch (e) {
          this.error = errorText(e, 'Following the impact');
        }
      })();
    }, POLL_MS);
  }

  async cancel(): Promise<void> {
    this.#generation++;
    clearTimeout(this.#timer);
    try {
      this.job = await api<ImpactJob>(this.path, { method: 'DELETE' });
    } catch (e) {
      this.error = errorText(e, 'Cancelling the impact');
    }
  }

  close(): void {
    if (this.running) void this.cancel();
    this.open = false;
  }

  dispose(): void {
    this.#generation++;
    clearTimeout(this.#timer);
  }
}
