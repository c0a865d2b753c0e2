import { defineConfig } from 'tsup';

/**
 * ESM and CommonJS with declarations, for browsers (bundlers) and Node 20; `ws` and `react` (optional
 * peers) stay external. The entry points share their code through chunks (`splitting`), so `ParleyError`
 * and every other class is one class whichever entry point an app imports it from. The declarations tsup writes for CommonJS are
 * the only ones kept: scripts/finish-declarations.mjs (run after tsup by `npm run build`) replaces the
 * ESM ones with one-line files that re-export them.
 */
export default defineConfig({
  entry: { index: 'src/index.ts', server: 'src/server.ts', react: 'src/react.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: true,
  outDir: process.env.PARLEY_SDK_OUT_DIR ?? 'dist',
  external: ['ws', 'react'],
});
