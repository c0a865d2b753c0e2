import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const consoleDir = path.resolve(import.meta.dirname, '..');
const sourceDir = path.join(consoleDir, 'src');

/** Every TypeScript file under src, as [path relative to src with `/`, text]. */
function sources(): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.tsx?$/.test(entry.name)) found.push([path.relative(sourceDir, file).split(path.sep).join('/'), fs.readFileSync(file, 'utf8')]);
    }
  };
  walk(sourceDir);
  return found;
}

/** The module specifiers a file imports or re-exports from. */
const specifiersOf = (text: string) => [...text.matchAll(/\b(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]/g)].map((match) => match[1] ?? '');

/** The modules that may call the admin API: the shared ones in src/api and each screen's api.ts. */
const isApiModule = (file: string) => /^api\/[^/]+\.ts$/.test(file) || /^screens\/[^/]+\/api\.ts$/.test(file);

describe('console: package and module boundaries', () => {
  const files = sources();

  it('uses the SDK through the package @parley/client only', () => {
    expect(files.length).toBeGreaterThan(50);
    const reachingIn = files.flatMap(([file, text]) =>
      specifiersOf(text)
        .filter((specifier) => /(^|\/)client\/src\b|^\.\.\/(\.\.\/)*client\//.test(specifier) || /^@parley\/client\/(?!server$)/.test(specifier))
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(reachingIn).toEqual([]);
    expect(files.some(([, text]) => specifiersOf(text).includes('@parley/client'))).toBe(true);
  });

  it('calls the admin API only from src/api and the screens’ api.ts files', () => {
    const callers = files
      .filter(([file]) => !isApiModule(file))
      .filter(
        ([, text]) =>
          /\bapi\.(GET|POST|PUT|PATCH|DELETE)\(/.test(text) || /import\s*\{[^}]*\b(api|call)\b[^}]*\}\s*from\s*['"][./]*api\/client\.js['"]/.test(text),
      )
      .map(([file]) => file);
    expect(callers).toEqual([]);
  });

  it('keeps each screen’s query keys, query functions and mutation functions in its api.ts', () => {
    const screenFolders = fs.readdirSync(path.join(sourceDir, 'screens'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(screenFolders.map((folder) => folder.name).filter((name) => !fs.existsSync(path.join(sourceDir, 'screens', name, 'api.ts')))).toEqual([]);
    const inline = files
      .filter(([file]) => file.startsWith('screens/') && file.endsWith('.tsx'))
      .filter(([, text]) => /\buse(Query|InfiniteQuery|Mutation)\(\{\s*(queryKey|queryFn|mutationFn)\b/.test(text))
      .map(([file]) => file);
    expect(inline).toEqual([]);
  });
});
