// The page's Tab order, for leaving a widget that keeps Tab for itself (Monaco inserts a tab character).

const TABBABLE = 'a[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable="true"]';

function tabbable(el: HTMLElement): boolean {
  if (el.tabIndex < 0 || el.matches(':disabled') || el.closest('[inert]') !== null) return false;
  // Hidden elements have no boxes; visibility:hidden ones do, but cannot take focus.
  return el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
}

/** Focus the first element after `widget` in Tab order (before it with `backwards`) that is outside it. */
export function focusPast(widget: HTMLElement, backwards: boolean): void {
  const scope = widget.closest('dialog[open]') ?? document.body;
  const all = [...scope.querySelectorAll<HTMLElement>(TABBABLE)].filter((el) => !widget.contains(el) && tabbable(el));
  const following = (el: HTMLElement): boolean => (widget.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
  // Past the last stop of the page it goes round to the first, as Tab does in the desktop app's window.
  const target = backwards ? (all.filter((el) => !following(el)).at(-1) ?? all.at(-1)) : (all.find(following) ?? all[0]);
  target?.focus();
}
