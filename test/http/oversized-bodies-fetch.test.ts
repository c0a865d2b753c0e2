import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERY_TIME_413, type Kind, oversizedScene, type Scene, SIZE, TIMES, sendEveryBody, sendWithFetch } from './oversized-bodies.js';

/** A body of 40 MB, over every limit, sent by Node's fetch, which reads the answer while it writes: a readable 413 envelope every time. */
describe("bodies over the limit, sent by Node's fetch, which reads the answer while it writes", () => {
  let scene: Scene;
  beforeAll(async () => {
    scene = await oversizedScene();
  });
  afterAll(async () => {
    await scene.close();
  });

  for (const kind of ['json', 'form', 'multipart'] as Kind[]) {
    it(`answers ${TIMES} readable 413 envelopes in a row to ${kind} bodies of ${SIZE / 2 ** 20} MB, on every surface that takes them`, async () => {
      const outcomes = await sendEveryBody(scene, kind, (target, body) => sendWithFetch(scene.base, target, body));
      expect(Object.keys(outcomes).length).toBeGreaterThanOrEqual(kind === 'multipart' ? 3 : 5);
      for (const [target, answers] of Object.entries(outcomes)) expect(answers, target).toEqual(EVERY_TIME_413);
    }, 240_000);
  }
});
