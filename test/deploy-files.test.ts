import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../src/cli/main.js';

/**
 * Docker cannot run on this machine, so the deployment files are kept honest by reading them: they
 * must parse, and every command they run must exist in this package.
 */
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
const knownCommands = new Set(['serve', 'migrate', 'admin-token', 'check', 'help']);

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
    const compose = parse(fs.readFileSync('compose.yaml', 'utf8')) as {
      services: Record<string, { command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, unknown>; healthcheck?: unknown }>;
    };
    expect(Object.keys(compose.services).sort()).toEqual(['parley', 'postgres', 'redis']);
    const parley = compose.services.parley;
    expect(parley?.environment?.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
    expect(parley?.environment?.REDIS_URL).toBe('redis://redis:6379');
    expect(Object.keys(parley?.depends_on ?? {}).sort()).toEqual(['postgres', 'redis']);
    expect(problemWith(parley?.command ?? [])).toBeNull();
    expect(compose.services.postgres?.healthcheck).toBeDefined();
  });

  it('the commands named there are real parley commands', async () => {
    const lines: string[] = [];
    expect(await runCli(['help'], (line) => lines.push(line))).toBe(0);
    for (const command of knownCommands) if (command !== 'help') expect(lines.join('\n')).toContain(command);
  });
});
