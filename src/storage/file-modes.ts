import fs from 'node:fs';

/**
 * What Parley keeps under DATA_DIR (the SQLite database with its WAL and shared memory, uploaded
 * blobs, secret.key) is for the server's own user only, whatever the umask it starts with: directories
 * 0700, files 0600. Modes are given when a file or directory is made and narrowed at start for those
 * an earlier start left open.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Takes the group and other bits off an existing file or directory; nothing there is fine. Answers
 * whether the mode changed. A path owned by another user (EPERM: a DATA_DIR the operator made) is left
 * as it is: what this process writes inside it is private anyway.
 */
export function narrowMode(target: string): boolean {
  let mode: number;
  try {
    mode = fs.statSync(target).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  if ((mode & 0o077) === 0) return false;
  try {
    fs.chmodSync(target, mode & 0o700);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPERM') return false;
    throw error;
  }
  return true;
}

/** Makes `dir` and its missing parents with mode 0700, or narrows it when it exists. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  narrowMode(dir);
}

/** Creates an empty file with mode 0600 unless one exists, then narrows it; for files another library opens. */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  narrowMode(file);
}
