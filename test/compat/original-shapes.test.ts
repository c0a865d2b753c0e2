import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ORIGINAL_SHAPES_FILE, useSource } from '../helpers/published-shapes.js';
import { shapesFrom } from './original-shapes.js';

/**
 * The answer shapes the repository carries (original-shapes.json) against a copy of the original's
 * published files, where one is at hand: the folder named by `PARLEY_ORIGINAL_API` (holding 686a8b6/
 * and 6e3323f/). Without a copy the check skips; the compatibility tests themselves run from the
 * carried shapes either way.
 */
const published = process.env.PARLEY_ORIGINAL_API ?? '';
const present = published !== '' && fs.existsSync(path.join(published, '686a8b6/swagger.yaml'));
if (!present) process.stdout.write('original shapes drift check skipped: PARLEY_ORIGINAL_API names no copy of the published files.\n');

describe.skipIf(!present)('the carried answer shapes', () => {
  afterAll(() => useSource(undefined));

  it('are what the published files say at every place the compatibility tests look up', () => {
    const carried: unknown = JSON.parse(fs.readFileSync(ORIGINAL_SHAPES_FILE, 'utf8'));
    expect(carried, 'run npm run compat:shapes -- <folder> to write them again').toEqual(shapesFrom(published));
  });
});
