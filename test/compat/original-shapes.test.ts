import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ORIGINAL_SHAPES_FILE, useSource } from '../helpers/original-api.js';
import { shapesFrom } from './original-shapes.js';

/**
 * The answer shapes the repository carries (original-shapes.json) against a copy of the original's
 * published files, where one is at hand: in `PARLEY_ORIGINAL_API`, or in `original-api/` of a folder
 * named `shared` beside the clone, as the maintainers keep it. Without a copy the check skips; the
 * compatibility tests themselves run from the carried shapes either way.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const published = process.env.PARLEY_ORIGINAL_API ?? path.resolve(repoRoot, '../shared/original-api');
const present = fs.existsSync(path.join(published, '686a8b6/swagger.yaml'));
if (!present) process.stdout.write(`original shapes drift check skipped: no copy of the published files at ${published} (set PARLEY_ORIGINAL_API).\n`);

describe.skipIf(!present)('the carried answer shapes', () => {
  afterAll(() => useSource(undefined));

  it('are what the published files say at every place the compatibility tests look up', () => {
    const carried: unknown = JSON.parse(fs.readFileSync(ORIGINAL_SHAPES_FILE, 'utf8'));
    expect(carried, 'run npm run compat:shapes -- <folder> to write them again').toEqual(shapesFrom(published));
  });
});
