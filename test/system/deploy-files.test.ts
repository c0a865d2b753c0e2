import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../src/cli/main.js';

/**
 * Docker cannot run on this machine, so the deployment files are kept honest by reading them: they
 * must parse, and every command they run must exist in this package.
 */
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
const knownCommands = new Set(['serve', 'migrate', 'admin-token', 'clients', 'seed', 'check', 'help']);

interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, unknown>;
  healthcheck?: unknown;
  ports?: string[];
  volumes?: string[];
}

const compose = parse(fs.readFileSync('compose.yaml', 'utf8')) as { services: Record<string, ComposeService> };

/** The container port of a compose `ports:` entry ("8080:8080", "127.0.0.1:80:8080/tcp"). */
function containerPort(entry: string): string {
  return (entry.split(':').pop() as string).replace(/\/.*$/, '');
}

/** Whether a caddy binary is on PATH, to validate the Caddyfile with Caddy itself. */
const caddy = spawnSync('caddy', ['version'], { encoding: 'utf8' });
const hasCaddy = caddy.status === 0;

/** Answers why a command line would not work here, or null when it would. */
function problemWith(command: string[]): string | null {
  const [program, first, second] = command;
  if (program === 'npm') {
    const script = first === 'run' ? second : first;
    return script && pkg.scripts[script] ? null : `npm script ${script} is not in package.json`;
  }
  if (program === 'node' && first && Object.values(pkg.bin).some((path) => path.replace(/^\.\//, '') === first)) {
    return second && knownCommands.has(second) ? null : `parley has no command ${second}`;
  }
  return `unknown program ${program}`;
}

describe('deployment files', () => {
  const dockerfile = fs.readFileSync('Dockerfile', 'utf8');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

  it('Dockerfile: multi-stage, non-root, with a health check and a command that exists', () => {
    expect(instructions.filter((line) => line.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2);
    const user = instructions.filter((line) => line.startsWith('USER ')).pop();
    expect(user).toBeDefined();
    expect(user).not.toMatch(/USER\s+(root|0)\b/);
    expect(instructions.some((line) => line.startsWith('HEALTHCHECK ') && line.includes('/healthz'))).toBe(true);
    const cmd = instructions.find((line) => line.startsWith('CMD '));
    expect(cmd).toBeDefined();
    const command = JSON.parse((cmd as string).slice(4)) as string[];
    expect(problemWith(command)).toBeNull();
    expect(instructions.some((line) => /^RUN npm ci\b/.test(line))).toBe(true);
  });

  it('compose file: parses, wires PostgreSQL and Redis, and runs a command that exists', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['lb', 'parley', 'postgres', 'redis']);
    const parley = compose.services.parley;
    expect(parley?.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
    expect(parley?.environment?.REDIS_URL).toBe('redis://redis:6379');
    expect(Object.keys(parley?.depends_on ?? {}).sort()).toEqual(['postgres', 'redis']);
    expect(problemWith(parley?.command ?? [])).toBeNull();
    expect(compose.services.postgres?.healthcheck).toBeDefined();
  });

  it('compose file: only the load balancer publishes a host port, so the app scales (--scale parley=3)', () => {
    const { lb, parley } = compose.services;
    expect(parley?.ports ?? []).toEqual([]);
    expect(lb?.image).toMatch(/^caddy:/);
    expect(lb?.ports?.length).toBeGreaterThan(0);
    expect(Object.keys(lb?.depends_on ?? {})).toContain('parley');
    const mount = (lb?.volumes ?? []).find((volume) => volume.includes('/etc/caddy/Caddyfile'));
    expect(mount).toBeDefined();
    const source = (mount as string).split(':')[0] as string;
    expect(fs.existsSync(source)).toBe(true);

    // The Caddyfile listens where compose publishes, and reaches every replica of the parley service.
    const caddyfile = fs.readFileSync(source, 'utf8');
    for (const entry of lb?.ports ?? []) expect(caddyfile).toMatch(new RegExp(`^:${containerPort(entry)} \\{`, 'm'));
    expect(caddyfile).toMatch(/^\s*dynamic a parley 8080\b/m);
  });

  it.skipIf(!hasCaddy)('deploy/Caddyfile is valid for Caddy (skipped without a caddy binary on PATH)', () => {
    const result = spawnSync('caddy', ['validate', '--config', 'deploy/Caddyfile', '--adapter', 'caddyfile'], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
  });

  it('the commands named there are real parley commands', async () => {
    const lines: string[] = [];
    expect(await runCli(['help'], (line) => lines.push(line))).toBe(0);
    for (const command of knownCommands) expect(lines.join('\n')).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });
});
