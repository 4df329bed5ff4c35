// Short notices in a corner of the window for the results of actions started from anywhere (the command palette
// above all): what happened, or what went wrong, in words. Errors stay until dismissed; the rest fade out.
export type ToastKind = 'info' | 'success' | 'error';

export interface Toast {
  id: number;
  kind: ToastKind;
  text: string;
}

export const toasts: Toast[] = $state([]);
let next = 1;
const LIFETIME_MS = 6000;

export function dismissToast(id: number): void {
  const k = toasts.findIndex((t) => t.id === id);
  if (k >= 0) toasts.splice(k, 1);
}

/** Show a notice; `sticky` keeps an info one (an action in progress) until it is updated. */
export function toast(text: string, kind: ToastKind = 'info', sticky = false): number {
  const id = next++;
  toasts.push({ id, kind, text });
  if (toasts.length > 5) toasts.splice(0, toasts.length - 5);
  if (kind !== 'error' && !sticky) setTimeout(() => dismissToast(id), LIFETIME_MS);
  return id;
}

/** Turn a notice (a "…" progress one, say) into its outcome. */
export function updateToast(id: number, text: string, kind: ToastKind): void {
  const t = toasts.find((x) => x.id === id);
  if (!t) {
    toast(text, kind);
    return;
  }
  t.text = text;
  t.kind = kind;
  if (kind !== 'error') setTimeout(() => dismissToast(id), LIFETIME_MS);
}
