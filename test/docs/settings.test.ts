import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/operations.md lists every environment variable Parley reads: the names are taken from
 * src/config.ts (the one place that reads the environment), as `env.NAME` or as a name handed to one of
 * its readers, and each must have a row of the configuration table.
 */
const REPO = path.resolve(import.meta.dirname, '../..');

function variablesReadBy(source: string): string[] {
  const names = new Set<string>();
  for (const match of source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(match[1] as string);
  for (const match of source.matchAll(/\(\s*(?:env,\s*)?'([A-Z][A-Z0-9_]+)'/g)) names.add(match[1] as string);
  return [...names].sort();
}

function documentedIn(markdown: string): Set<string> {
  const rows = markdown.split('\n').filter((line) => line.startsWith('| `'));
  return new Set(rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1] as string)));
}

describe('docs/operations.md', () => {
  it('has a configuration row for every variable src/config.ts reads', () => {
    const read = variablesReadBy(fs.readFileSync(path.join(REPO, 'src/config.ts'), 'utf8'));
    expect(read).toContain('PORT');
    expect(read).toContain('PARLEY_SECRET_KEY');
    const documented = documentedIn(fs.readFileSync(path.join(REPO, 'docs/operations.md'), 'utf8'));
    expect(read.filter((name) => !documented.has(name))).toEqual([]);
  });
});
