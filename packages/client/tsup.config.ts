import { defineConfig } from 'tsup';

/** ESM and CommonJS with declarations, for browsers (bundlers) and Node 20; `ws` stays external. */
export default defineConfig({
  entry: { index: 'src/index.ts', server: 'src/server.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  target: 'es2022',
  platform: 'neutral',
  sourcemap: true,
  clean: true,
  splitting: false,
  treeshake: true,
  outDir: process.env.PARLEY_SDK_OUT_DIR ?? 'dist',
  external: ['ws'],
});
