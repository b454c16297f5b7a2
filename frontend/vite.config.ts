/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const BACKEND = 'http://127.0.0.1:8000';

// Django serves the built assets under /static/ and dist/index.html for the app routes,
// so only the build uses that base; the dev server serves the app at / like Django does.
export default defineConfig(({ command }) => ({
  base: command === 'build' ? '/static/' : '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // One bundle for the whole app (React, React Flow, dagre): about 175 kB gzipped.
    chunkSizeWarningLimit: 800,
  },
  server: {
    proxy: {
      '/api': { target: BACKEND, changeOrigin: true },
      '/ws': { target: BACKEND, ws: true, changeOrigin: true },
    },
  },
  test: {
    environment: 'node',
    // component tests (*.test.tsx) choose jsdom themselves: `// @vitest-environment jsdom`
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx'],
    // the style sheets' text for the tests that read it (src/styles/*.test.ts); vitest empties CSS otherwise
    css: { include: [/\/src\/styles\/[^/]+\.css/] },
  },
}));
