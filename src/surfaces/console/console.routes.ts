import fs from 'node:fs/promises';
import path from 'node:path';
import type { FastifyReply } from 'fastify';
import type { TypedApp } from '../../http/typed-app.js';
import { AppError } from '../../shared/errors.js';

/** Static files are no API: left out of /openapi.json. */
const HIDDEN = { schema: { hide: true } } as const;

/** Vite names the files under assets/ by their content hash: a changed file gets another name. */
const ASSETS = 'assets/';
const IMMUTABLE = { maxAge: 365 * 24 * 3600 * 1000, immutable: true };
/** index.html names the current assets, so the browser asks again every time (a 304 when unchanged). */
const ALWAYS_REVALIDATE = { cacheControl: false };

/** Answered instead of the console when its build is not there. */
const UNBUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Parley console not built</title></head>
<body><h1>The Parley console is not built</h1>
<p>This server has no build of the admin console (packages/console/dist). Build it with
<code>npm run console:build</code> (<code>npm start</code> does it when needed), then reload this page.</p>
<p>The admin API at /api/v2 works without it.</p></body></html>
`;

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * The file of the build a path names, relative to the build, or null when it names none: nothing
 * there, a directory, a hidden file, or a path that leaves the build (`..`).
 */
async function fileOf(dir: string, wanted: string): Promise<string | null> {
  if (wanted === '' || wanted.split('/').some((part) => part.startsWith('.'))) return null;
  const absolute = path.resolve(dir, wanted);
  if (!absolute.startsWith(dir + path.sep)) return null;
  return (await isFile(absolute)) ? path.relative(dir, absolute) : null;
}

function sendUnbuilt(reply: FastifyReply): FastifyReply {
  return reply.code(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(UNBUILT_PAGE);
}

/**
 * The console's pages: /console and / send the browser to /console/; under it, a file of the build is
 * served as it is, and any other path gets index.html, where the console's own router takes over
 * (a single-page app: /console/users/alice is one of its screens). A missing file under assets/ is a
 * 404: a page asking for it is from another build.
 */
export function registerConsoleRoutes(app: TypedApp, deps: { dir: string; basePath: string }): void {
  const dir = path.resolve(deps.dir);
  const home = `${deps.basePath}/console/`;
  app.get('/', HIDDEN, async (_request, reply) => reply.redirect(home, 302));
  app.get('/console', HIDDEN, async (_request, reply) => reply.redirect(home, 302));
  app.get('/console/*', HIDDEN, async (request, reply) => {
    if (!(await isFile(path.join(dir, 'index.html')))) return sendUnbuilt(reply);
    const wanted = (request.params as { '*': string })['*'];
    const file = await fileOf(dir, wanted);
    if (file !== null && file !== 'index.html') return reply.sendFile(file, dir, file.startsWith(ASSETS) ? IMMUTABLE : {});
    if (file === null && wanted.startsWith(ASSETS)) throw new AppError('notFound', `${wanted} is not in this build of the console: reload the page.`);
    reply.header('cache-control', 'no-cache');
    return reply.sendFile('index.html', dir, ALWAYS_REVALIDATE);
  });
}
