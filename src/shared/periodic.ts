/**
 * The timers of a background job that looks every interval, the first time within a minute of start
 * (a deployment's jobs should not wait a whole interval after a restart). They never hold the process open.
 */
export function periodicLooks(look: () => void, intervalMs: number) {
  let firstLook: NodeJS.Timeout | null = null;
  let timer: NodeJS.Timeout | null = null;
  return {
    start(): void {
      if (timer) return;
      firstLook = setTimeout(look, Math.min(intervalMs, 60_000));
      firstLook.unref();
      timer = setInterval(look, intervalMs);
      timer.unref();
    },
    stop(): void {
      if (timer) clearInterval(timer);
      if (firstLook) clearTimeout(firstLook);
      timer = null;
      firstLook = null;
    },
  };
}
