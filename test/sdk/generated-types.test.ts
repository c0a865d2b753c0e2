import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentPath, serverDocument, typesOf, typesPath } from '../../packages/client/scripts/openapi-document.js';

/**
 * The SDK's committed OpenAPI document and types are what the server serves now: a route whose schema
 * changed without `npm run sdk:generate` fails here.
 */
describe('SDK: generated types', () => {
  it('match the OpenAPI document the server serves', async () => {
    const served = await serverDocument();
    const committed = fs.readFileSync(documentPath, 'utf8');
    const stale = 'differs from what the server serves: run `npm run sdk:generate`';
    // Compared as objects first, for a readable difference; then byte for byte.
    expect(JSON.parse(committed), `packages/client/openapi.json ${stale}`).toEqual(JSON.parse(served));
    expect(committed, `packages/client/openapi.json ${stale}`).toBe(served);
    expect(fs.readFileSync(typesPath, 'utf8'), `packages/client/src/generated/openapi.d.ts ${stale}`).toBe(await typesOf(served));
  });
});
