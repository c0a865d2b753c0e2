import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { AppError, envelopeOf } from '../shared/errors.js';

/**
 * An answer sent before its request's body has arrived whole (a 413 for a body over the limit, a 401
 * before an upload) reaches the client only if the server goes on reading: a client still writing
 * (Node's fetch, curl after `100 Continue`) that meets a closed socket reports EPIPE or a reset and
 * never reads the answer. So such an answer waits until the rest of the body has been read and
 * thrown away, up to DRAIN_LIMIT_BYTES; past that the connection is closed, since no answer is
 * worth reading an unbounded body for. A client that asks first (`Expect: 100-continue`) with a
 * length over anything a route accepts is refused at once, before it sends a byte of the body.
 */
export const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

/** Resolves once the rest of the body is read and dropped; false when it exceeded the bound or broke off. */
function drain(raw: IncomingMessage, limit: number): Promise<boolean> {
  return new Promise((resolve) => {
    let read = 0;
    const finish = (whole: boolean) => {
      raw.removeListener('data', onData);
      raw.removeListener('end', onEnd);
      raw.removeListener('error', onBroken);
      raw.removeListener('close', onBroken);
      resolve(whole);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limit) finish(false);
    };
    const onEnd = () => finish(true);
    const onBroken = () => finish(raw.complete);
    raw.on('data', onData);
    raw.once('end', onEnd);
    raw.once('error', onBroken);
    raw.once('close', onBroken);
    // A multipart parser still piped to the body would hold it back once it stops reading.
    raw.unpipe();
    raw.resume();
  });
}

/** True while a request's body is still arriving (`complete` is Node's; an injected request only ends). */
const bodyStillComing = (raw: IncomingMessage): boolean =>
  !raw.complete && !raw.readableEnded && !raw.destroyed && (raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0);

export function installUnreadBodyDraining(app: FastifyInstance): void {
  // Callback style: every answer passes here, and one whose body was read whole pays one property read.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!bodyStillComing(request.raw)) {
      done(null, payload);
      return;
    }
    void drain(request.raw, DRAIN_LIMIT_BYTES).then((whole) => {
      if (!whole) reply.header('connection', 'close');
      done(null, payload);
    });
  });
}

/**
 * Answers `Expect: 100-continue` itself: a declared length over `largestBody` is a 413 envelope sent
 * before the body, and the connection closes; anything else is told to continue and handled as usual.
 */
export function answerExpectContinue(server: Server, handler: (request: IncomingMessage, response: ServerResponse) => void, largestBody: number): void {
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    const length = Number(request.headers['content-length'] ?? 0);
    if (!(length > largestBody)) {
      response.writeContinue();
      handler(request, response);
      return;
    }
    const body = JSON.stringify(envelopeOf(new AppError('payloadTooLarge', `The body is too large: at most ${largestBody} bytes.`)));
    response.writeHead(413, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    response.end(body);
  });
}
