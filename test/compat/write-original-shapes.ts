import fs from 'node:fs';
import path from 'node:path';
import { ORIGINAL_SHAPES_FILE } from '../helpers/published-shapes.js';
import { shapesFrom } from './original-shapes.js';

/** `npm run compat:shapes -- <folder>`: writes test/compat/original-shapes.json from a copy of the original's published files. */
const folder = process.argv[2];
if (folder === undefined || !fs.existsSync(path.join(folder, '686a8b6/swagger.yaml'))) {
  console.error('usage: npm run compat:shapes -- <folder holding 686a8b6/ and 6e3323f/ of the published files>');
  process.exit(2);
}
fs.writeFileSync(ORIGINAL_SHAPES_FILE, `${JSON.stringify(shapesFrom(folder), null, 1)}\n`);
console.log(`wrote ${path.relative(process.cwd(), ORIGINAL_SHAPES_FILE)}`);
