import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';

/**
 * Writes a .br and a .gz beside each script and style sheet of the build: the server sends them to
 * browsers that accept them (@fastify/static preCompressed), so the console travels compressed without
 * compressing on every request or needing a proxy in front.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'parley-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const assets = path.join(outDir, 'assets');
      for (const name of fs.readdirSync(assets)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const file = path.join(assets, name);
        const bytes = fs.readFileSync(file);
        fs.writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
        fs.writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

// The server serves dist at /console/ with a CSP of 'self': everything is bundled, nothing inline.
// `npm run dev` proxies the API, sign-in and health routes to a Parley server (PARLEY_URL, default :8080).
const target = process.env.PARLEY_URL ?? 'http://127.0.0.1:8080';
const proxied = ['/api', '/oauth', '/.well-known', '/login', '/logout', '/userinfo', '/readyz', '/healthz', '/metrics', '/openapi.json', '/file'];

export default defineConfig({
  // CONSOLE_BASE: for a server published under a path prefix, e.g. /chat/console/.
  base: process.env.CONSOLE_BASE ?? '/console/',
  plugins: [react(), precompress()],
  // `@parley/client` resolves to the SDK's TypeScript sources through the `@parley/source` export condition
  // (packages/client/package.json; tsconfig.json's customConditions does the same for tsc): the console
  // bundles the SDK as it is in this checkout, with no SDK build to run first or to go stale.
  resolve: { conditions: ['@parley/source', ...defaultClientConditions] },
  // Each screen is a chunk loaded when first opened (App.tsx); the first load carries React, Mantine and the sign-in.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1500 },
  server: { proxy: Object.fromEntries(proxied.map((path) => [path, { target, changeOrigin: false }])) },
  preview: { proxy: Object.fromEntries(proxied.map((path) => [path, { target, changeOrigin: false }])) },
});
