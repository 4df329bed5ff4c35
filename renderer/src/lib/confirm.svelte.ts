// A question before a destructive step, asked in the page (a modal dialog) rather than with window.confirm, so it
// follows the theme and can say what will happen. `ask` resolves to true when the user agrees.
export interface Question {
  title: string;
  detail: string;
  confirmLabel: string;
  danger: boolean;
  answer: (yes: boolean) => void;
}

export const question: { current: Question | null } = $state({ current: null });

export function ask(title: string, options: { detail?: string; confirmLabel?: string; danger?: boolean } = {}): Promise<boolean> {
  question.current?.answer(false);
  return new Promise((resolve) => {
    question.current = {
      title,
      detail: options.detail ?? '',
      confirmLabel: options.confirmLabel ?? 'OK',
      danger: options.danger ?? false,
      answer: (yes) => {
        question.current = null;
        resolve(yes);
      },
    };
  });
}
