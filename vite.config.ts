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
  },
  server: {
    // `npx vite` for UI work: proxy the API to a hub started with `npx datahub serve`.
    proxy: { '/api': 'http://127.0.0.1:9042', '/login': 'http://127.0.0.1:9042' },
  },
});
