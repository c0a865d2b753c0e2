import fs from 'node:fs';
import path from 'node:path';

/**
 * One set of declarations for both module systems. tsup writes each declaration twice, `.d.ts` for the
 * ESM build and `.d.cts` for the CommonJS one, the generated REST types (most of the package) included.
 * This keeps the `.d.cts` files and makes each entry point's `.d.ts` a one-line re-export of its `.d.cts`:
 * an ES module may import a CommonJS one, so `import` and `require` resolve to the same declarations,
 * each through its own `types` condition (package.json `exports`).
 */
const outDir = path.resolve(import.meta.dirname, '..', process.env.PARLEY_SDK_OUT_DIR ?? 'dist');
const entries = ['index', 'server', 'react'];

for (const file of fs.readdirSync(outDir)) {
  if (file.endsWith('.d.ts')) fs.rmSync(path.join(outDir, file));
}
for (const entry of entries) {
  if (!fs.existsSync(path.join(outDir, `${entry}.d.cts`))) throw new Error(`tsup wrote no ${entry}.d.cts in ${outDir}`);
  fs.writeFileSync(path.join(outDir, `${entry}.d.ts`), `export * from './${entry}.cjs';\n`);
}
