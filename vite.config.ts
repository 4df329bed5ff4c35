import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The renderer is a static app: the hub serves the built files at "/" and the API at "/api".
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [svelte()],
  build: {
    outDir: '../out/renderer',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    // Monaco's editor chunk (~3.5 MB) is loaded only when a config editor opens; the first screen stays small.
    chunkSizeWarningLimit: 4000,
    // The Svelte compiler is most of a build's time on purpose; the bundler's timing report is noise here.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  // Monaco's language workers split into chunks, which only module workers can load.
  worker: { format: 'es' },
  server: {
    // `npx vite` for UI work: proxy the API to a hub started with `npx datahub serve`.
    proxy: { '/api': 'http://127.0.0.1:9042', '/login': 'http://127.0.0.1:9042' },
  },
});
