// The writer thread's entry (see message-writer.ts): registers the TypeScript loader, then runs the
// worker module. Plain JavaScript, because a worker thread does not inherit vitest's module loader.
import { register } from 'tsx/esm/api';

register();
await import('./message-writer.worker.ts');
