/**
 * The one clock every time-dependent rule reads (mutes, token expiry, tray windows). Tests and the
 * PARLEY_TEST_CLOCK endpoint move it forward without waiting.
 */
export interface Clock {
  now(): number;
}

export class AdjustableClock implements Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Sets (not adds to) the offset from the real clock, as docs/contract.md, Easy to get wrong, requires. */
  setOffset(offsetMs: number): void {
    this.offsetMs = offsetMs;
  }
}
