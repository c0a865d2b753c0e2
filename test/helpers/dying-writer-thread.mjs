// A message writer thread that starts, says it is ready, and dies on its first batch (message-writer.test.ts).
import { parentPort } from 'node:worker_threads';

parentPort.on('message', () => process.exit(3));
parentPort.postMessage({ kind: 'ready' });
