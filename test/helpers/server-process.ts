import { type ChildProcess, spawn } from 'node:child_process';

/** A Parley server running as its own process, as an operator starts it, on a port the OS picked. */
export interface ServerProcess {
  url: string;
  child: ChildProcess;
}

/**
 * Starts `src/main.ts` in a child process bound to 127.0.0.1 with `env` over the test's environment
 * (the admin token, DATA_DIR, DATABASE_URL...), and answers once it prints where it serves.
 */
export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 60_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving on (http:\/\/[\d.:]+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ url: match[1], child });
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

/** Kills the server with SIGKILL, as a crash would; resolves once it is gone. */
export function killServerProcess(server: ServerProcess): Promise<void> {
  return new Promise((resolve) => {
    server.child.removeAllListeners('exit');
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      resolve();
      return;
    }
    server.child.on('exit', () => resolve());
    server.child.kill('SIGKILL');
  });
}
