import { Type } from '@sinclair/typebox';
import type { AdjustableClock } from '../../clock.js';
import { answers, JSON_AND_FORM } from '../../http/responses.js';
import type { TypedApp } from '../../http/typed-app.js';
import { AppError } from '../../shared/errors.js';
import { networkAdmins } from './console-access.js';

const TestClockBody = Type.Object(
  { offsetMs: Type.Integer({ minimum: 0, maximum: 10 * 365 * 24 * 3600 * 1000, description: 'How far ahead of the real clock the server runs, in ms' }) },
  { examples: [{ offsetMs: 864_000_000 }] },
);

const TestClockAnswer = Type.Object(
  { now: Type.Integer({ description: "The server's time now, in ms since the epoch" }) },
  { description: "The server's time with the new offset", examples: [{ now: 1742808353589 }] },
);

/** Exists only with PARLEY_TEST_CLOCK=1: moves the server's clock for time-dependent rules. */
export function registerTestClockRoute(app: TypedApp, deps: { clock: AdjustableClock }): void {
  app.put(
    '/test-clock',
    {
      config: { ...networkAdmins('the test clock'), audit: 'testClock.set' },
      schema: {
        tags: ['operations'],
        summary: 'Set the test clock offset (PARLEY_TEST_CLOCK=1 only)',
        description:
          "Sets the server clock's offset from the real clock (it replaces the previous offset, it does not add to it), for rules that depend on time: " +
          'mutes, the tray windows, token expiry. The route exists only when the server started with PARLEY_TEST_CLOCK=1.',
        consumes: JSON_AND_FORM,
        body: TestClockBody,
        response: answers(TestClockAnswer),
      },
    },
    async (request) => {
      if (!Number.isSafeInteger(request.body.offsetMs)) throw new AppError('parameters', 'offsetMs is out of range.');
      deps.clock.setOffset(request.body.offsetMs);
      return { now: deps.clock.now() };
    },
  );
}
