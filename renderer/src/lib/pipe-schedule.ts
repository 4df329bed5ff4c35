// How a pipe's schedule reads in the UI. The hub's `is-disabled` is also true for a pump whose mode is manual (a
// receiver, say): such a pipe is not switched off, it runs when asked, so it reads "manual", never "disabled".
export type ScheduleWord = 'enabled' | 'disabled' | 'manual' | 'off';

interface PipeLike {
  config: { effective: { pump?: Record<string, unknown> } };
  runtime: { 'is-disabled': boolean };
}

export function scheduleWord(p: PipeLike): ScheduleWord {
  const mode = p.config.effective.pump?.['mode'];
  if (mode === 'manual') return 'manual';
  if (mode === 'off') return 'off';
  return p.runtime['is-disabled'] ? 'disabled' : 'enabled';
}

export const SCHEDULE_HELP: Record<ScheduleWord, string> = {
  enabled: 'Runs on its schedule',
  disabled: 'Its schedule is disabled: it runs only when started',
  manual: 'A manual pump (pump mode "manual"): it runs when started or when entities are posted to it',
  off: 'Pump mode "off": it never runs',
};
