import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FRAME_TYPES } from '../../packages/client/src/generated/frames.js';
import { framesPath, framesSource } from '../../packages/client/scripts/frames-source.js';
import type { EventType } from '../../src/events/catalogue.js';
import { SOCIAL_EVENT_TYPES } from '../../src/modules/social/social.events.js';

const REGENERATE = 'packages/client/src/generated/frames.ts differs from the event catalogue (src/events/catalogue.ts): run `npm run sdk:generate`';

/**
 * The SDK's committed frame types are what the server's event catalogue says: an event type or payload
 * changed without `npm run sdk:generate` fails here.
 */
describe('SDK: generated frame types', () => {
  it('match the event catalogue', { timeout: 120_000 }, () => {
    expect(fs.readFileSync(framesPath, 'utf8'), REGENERATE).toBe(framesSource());
  });

  it('are every catalogue type the stream sends, social events left out', () => {
    // Typed against the catalogue: a frame type missing from it fails tsc here.
    const streamed: readonly EventType[] = FRAME_TYPES;
    expect(streamed).toEqual(expect.arrayContaining(['message.created', 'member.removed', 'tray.updated']));
    for (const social of SOCIAL_EVENT_TYPES) expect(streamed).not.toContain(social);
  });
});
