// Unsaved-edit protection. An editor registers a guard that returns a message while it holds unsaved
// changes; every navigation (nav.go, the palette, back/forward, closing the window) asks first.
type Guard = () => string | null;
const guards = new Set<Guard>();

export function registerDirtyGuard(guard: Guard): () => void {
  guards.add(guard);
  return () => guards.delete(guard);
}

export function pendingChanges(): string | null {
  for (const guard of guards) {
    const message = guard();
    if (message) return message;
  }
  return null;
}

/** True when navigation may go ahead: nothing unsaved, or the user agreed to drop it. */
export function confirmNavigation(): boolean {
  const message = pendingChanges();
  return message === null || window.confirm(`${message}\n\nLeave and discard these changes?`);
}

window.addEventListener('beforeunload', (event) => {
  if (pendingChanges() !== null) event.preventDefault();
});
