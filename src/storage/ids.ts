import { randomBytes } from 'node:crypto';

/**
 * Ids laid out like a MongoDB ObjectId (docs/contract.md, Records): 4 bytes of seconds, 5 random
 * bytes fixed per process, 3 bytes of counter. They sort by creation time and look like the original's.
 */
const processRandom = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

export function newObjectId(nowMs: number = Date.now()): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(nowMs / 1000) % 0x100000000;
  return seconds.toString(16).padStart(8, '0') + processRandom + counter.toString(16).padStart(6, '0');
}
