import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { staleReason } from '../../scripts/ensure-console.mjs';

const readStale = staleReason as (root: string) => string | null;

/** A repository tree with the console built at `builtAt` and one source file written at `changedAt`. */
function tree(changed: string, builtAt: number, changedAt: number): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-console-build-'));
  const write = (file: string, at: number) => {
    const full = path.join(root, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, 'x');
    fs.utimesSync(full, at / 1000, at / 1000);
  };
  write('packages/console/src/main.tsx', builtAt - 60_000);
  write('packages/client/src/index.ts', builtAt - 60_000);
  write('packages/console/dist/index.html', builtAt);
  write(changed, changedAt);
  return root;
}

describe('when the console is built again', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
  });

  it("rebuilds after a change to the console's or the SDK's sources, and not otherwise", () => {
    const now = Date.now();
    const cases: Array<[string, number, boolean]> = [
      ['packages/console/src/screens/Users.tsx', now + 60_000, true],
      ['packages/client/src/live/messages.ts', now + 60_000, true],
      ['packages/client/src/live/messages.ts', now - 120_000, false],
      ['src/app.ts', now + 60_000, false],
    ];
    for (const [changed, at, stale] of cases) {
      const root = tree(changed, now, at);
      roots.push(root);
      const reason = readStale(root);
      expect(reason === null ? 'current' : reason, changed).toBe(stale ? `${changed} is newer than the build` : 'current');
    }
  });
});
