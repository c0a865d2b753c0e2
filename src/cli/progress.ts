/** A one-line progress bar on a terminal; on anything else (CI logs, pipes) a line per 10%. */
export function createProgressBar(stream: NodeJS.WriteStream, width = 30) {
  let lastDrawn = -1;
  const started = Date.now();
  return {
    update(done: number, total: number): void {
      const fraction = total === 0 ? 1 : Math.min(1, done / total);
      const percent = Math.floor(fraction * 100);
      if (stream.isTTY) {
        if (percent === lastDrawn && done !== total) return;
        const filled = Math.round(fraction * width);
        const rate = Math.round(done / Math.max(0.001, (Date.now() - started) / 1000));
        stream.write(
          `\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${String(percent).padStart(3)}% ${done.toLocaleString('en')}/${total.toLocaleString('en')} rows, ${rate.toLocaleString('en')}/s`,
        );
      } else if (Math.floor(percent / 10) !== Math.floor(lastDrawn / 10)) {
        stream.write(`${percent}% (${done}/${total} rows)\n`);
      }
      lastDrawn = percent;
    },
    done(): void {
      if (stream.isTTY) stream.write('\n');
    },
  };
}
