import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.js';
import { registerConsoleRoutes } from './console.routes.js';

/**
 * The console's pages load only their own scripts, styles and images, call only this origin, and are
 * framed by no one. 'unsafe-inline' styles: the component kit injects its styles at run time.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  done();
}

/**
 * The admin console (packages/console, built by Vite into its dist/) at /console, and / sending the
 * browser there. `dir` is the build; when it holds no index.html the console answers a 503 page
 * saying how to build it.
 */
export function consoleSurface(options: { dir: string; basePath: string }) {
  return async function consolePages(scope: TypedApp): Promise<void> {
    scope.addHook('onRequest', securityHeaders);
    // Only reply.sendFile: the routes pick the file. No root here, so a build made after the start is served.
    // preCompressed: the build writes .br and .gz beside its scripts and styles (vite.config.ts).
    await scope.register(fastifyStatic, { serve: false, preCompressed: true });
    registerConsoleRoutes(scope, options);
  };
}
