// A view's component is loaded (a chunk of its own) the first time it is shown, so the app's first page compiles
// only the frame and the view it opens on. Use the getter in an {#await}: the promise the first time, the component
// itself once loaded, which {#await} draws at once (a view shown again appears without a blank moment).

/** A getter for the default export of `load`'s module: a promise until it has loaded, then the export itself. */
export function lazyComponent<T>(load: () => Promise<{ default: T }>): () => T | Promise<T> {
  let loaded: { component: T } | undefined;
  let loading: Promise<T> | undefined;
  return () => {
    if (loaded) return loaded.component;
    loading ??= load().then(
      (module) => (loaded = { component: module.default }).component,
      (err: unknown) => {
        // A failed load (the app updated underneath, say) is tried again the next time the view is shown.
        loading = undefined;
        throw err;
      },
    );
    return loading;
  };
}
