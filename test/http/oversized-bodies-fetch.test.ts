import { describeOversizedBodies, sendWithFetch } from './oversized-bodies.js';

/** A body of 40 MB, over every limit, sent by Node's fetch, which reads the answer while it writes: a readable 413 envelope every time. */
describeOversizedBodies("Node's fetch, which reads the answer while it writes", (scene, target, body) => sendWithFetch(scene.base, target, body));
