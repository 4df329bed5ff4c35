// Vite's `?worker` imports: the default export constructs the bundled worker.
declare module '*?worker' {
  const WorkerConstructor: new (options?: { name?: string }) => Worker;
  export default WorkerConstructor;
}
