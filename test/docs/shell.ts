import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A reader's terminal, for one guide: each block runs in a fresh bash that first loads what the
 * earlier blocks left (variables, exported or not, and functions) and saves its own at exit, so
 * `export TOKEN=$(...)` in one block is there in the next. Servers and anything a block leaves in the
 * background run in their own process groups, ended with the guide.
 */
export interface BlockResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const REPO = path.resolve(import.meta.dirname, '../..');

/** The test run's own settings that would change what the reader's commands do. */
const CLEARED = /^(DATABASE_URL|REDIS_URL|DATA_DIR|PORT|HOST|PUBLIC_URL|OIDC_ISSUER|LOG_LEVEL|PARLEY_.*|npm_.*|TEST_.*)$/;

/** A port no one listens on at the moment. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const SAVE_STATE = `
__parley_save() {
  {
    for __name in $(compgen -v); do
      case "$__name" in BASH*|FUNCNAME|GROUPS|PIPESTATUS|DIRSTACK|RANDOM|SRANDOM|SECONDS|LINENO|EPOCH*|HISTCMD|PPID|UID|EUID|SHELLOPTS|SHLVL|PWD|OLDPWD|_|__*|COMP*|OPT*|IFS|PS[0-9]) continue ;; esac
      declare -p "$__name"
    done
    declare -f
  } > "$__STATE.new" 2>/dev/null
  mv "$__STATE.new" "$__STATE"
}
trap '__status=$?; __parley_save; exit $__status' EXIT
`;

export class ShellSession {
  private readonly groups: ChildProcess[] = [];
  private readonly serverLogs: string[] = [];
  readonly root: string;
  private readonly state: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(extraEnv: Record<string, string>) {
    this.root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-guide-'));
    this.state = path.join(this.root, 'state.sh');
    fs.writeFileSync(this.state, '');
    fs.mkdirSync(path.join(this.root, 'tmp'));
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CLEARED.test(name)));
    this.env = { ...base, TMPDIR: path.join(this.root, 'tmp'), DATA_DIR: path.join(this.root, 'data'), __STATE: this.state, ...extraEnv };
  }

  private spawnBash(script: string): ChildProcess {
    const child = spawn('bash', ['-c', script], { cwd: REPO, env: this.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.groups.push(child);
    return child;
  }

  /** Runs one block to its end (or `timeoutMs`, then kills its group). */
  run(code: string, timeoutMs = 90_000): Promise<BlockResult> {
    const child = this.spawnBash(`${SAVE_STATE}\nsource "$__STATE"\nset -eo pipefail\n${code}\n`);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        stderr += `\n(killed after ${timeoutMs} ms)`;
        killGroup(child, 'SIGKILL');
      }, timeoutMs);
      // A block may leave a process in the background that holds its output open: the block ends when
      // bash exits, and output still in flight then has half a second to arrive.
      let settled = false;
      const settle = (code: number | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      };
      child.on('close', settle);
      child.on('exit', (code) => setTimeout(() => settle(code), 500));
    });
  }

  /**
   * Starts a server with the block's last line, in the state the block's other lines left, and waits
   * for its banner.
   */
  async startServer(code: string, timeoutMs = 90_000): Promise<BlockResult> {
    const lines = code.trimEnd().split('\n');
    const command = lines.pop() as string;
    const setup = await this.run(lines.join('\n'));
    if (setup.code !== 0) return setup;
    const child = this.spawnBash(`source "$__STATE"\n${command}\n`);
    const log = { text: '' };
    this.serverLogs.push('');
    const index = this.serverLogs.length - 1;
    const append = (chunk: Buffer) => {
      log.text += chunk.toString();
      this.serverLogs[index] = log.text.slice(-4000);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    const started = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const check = () => {
        if (log.text.includes('Parley is serving on')) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      child.stdout?.on('data', check);
      child.on('exit', () => {
        clearTimeout(timer);
        resolve(log.text.includes('Parley is serving on'));
      });
    });
    return { code: started ? 0 : 1, stdout: setup.stdout, stderr: started ? setup.stderr : `the server did not start:\n${log.text}` };
  }

  /** The end of every server's output, for a failure message. */
  serverOutput(): string {
    return this.serverLogs.map((text, index) => `--- server ${index + 1} ---\n${text}`).join('\n');
  }

  /** Ends the servers and whatever blocks left running (SIGTERM, then SIGKILL), and removes the files. */
  async close(): Promise<void> {
    const alive = this.groups.filter((child) => killGroup(child, 'SIGTERM'));
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && alive.some((child) => groupAlive(child))) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const child of alive) killGroup(child, 'SIGKILL');
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

function groupAlive(child: ChildProcess): boolean {
  try {
    process.kill(-(child.pid as number), 0);
    return true;
  } catch {
    return false;
  }
}

/** Signals the child's whole process group; answers whether it was still there. */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}
