import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { onInterrupt } from './interrupt.js';
import { ROOT } from './lib.js';

/** Another commit's code, checked out beside this tree to be measured against it. */
export interface RefTree {
  /** The ref as given (a branch, a tag, an abbreviated id). */
  ref: string;
  /** The full commit id the ref names. */
  commit: string;
  root: string;
}

const execFileAsync = promisify(execFile);

function runGit(args: string[]): Promise<unknown> {
  return execFileAsync('git', args, { cwd: ROOT });
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    throw new Error(`git ${args.join(' ')}: ${typeof stderr === 'string' && stderr !== '' ? stderr.trim() : String(error)}`);
  }
}

export function resolveCommit(ref: string): string {
  try {
    return git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  } catch {
    throw new Error(`no commit is named ${JSON.stringify(ref)} in ${ROOT}`);
  }
}

/** What "current" is: HEAD's short id, and whether tracked files differ from it. */
export function describeCurrentTree(): string {
  const head = git(['rev-parse', '--short', 'HEAD']);
  const changed = git(['status', '--porcelain', '--untracked-files=no']) !== '';
  return `the working tree at HEAD ${head}${changed ? ' with uncommitted changes' : ''}`;
}

/**
 * Checks `ref` out in a detached worktree under the temp dir, links this tree's node_modules into it
 * (the dependencies are the same, and installing them again would take minutes), runs `use`, and
 * removes the worktree afterwards: on success, on failure and on Ctrl-C.
 */
export async function withRefTree<T>(ref: string, use: (tree: RefTree) => Promise<T>): Promise<T> {
  const commit = resolveCommit(ref);
  // The real path: main.ts starts only when the path it was given is the module's own URL.
  const parent = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'parley-bench-ref-'));
  const root = path.join(parent, 'tree');
  let removal: Promise<void> | undefined;
  const remove = () => (removal ??= removeTree(parent, root));
  const forget = onInterrupt(remove);
  try {
    git(['worktree', 'add', '--quiet', '--detach', root, commit]);
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    return await use({ ref, commit, root });
  } finally {
    await remove();
    forget();
  }
}

/** Asynchronous, so that the event loop keeps answering signals while it runs (interrupt.ts). */
async function removeTree(parent: string, root: string): Promise<void> {
  // The link first, so that nothing below can reach this tree's node_modules through it.
  await fs.promises.rm(path.join(root, 'node_modules'), { force: true });
  const removed = await runGit(['worktree', 'remove', '--force', root]).then(
    () => true,
    () => false,
  );
  await fs.promises.rm(parent, { recursive: true, force: true });
  // Not registered (the add failed) or half removed: prune drops registrations whose directory is gone.
  if (!removed) await runGit(['worktree', 'prune']);
}
