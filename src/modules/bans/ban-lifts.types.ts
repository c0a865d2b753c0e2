import { Type } from '@sinclair/typebox';
import type { BanLiftsTable } from '../../storage/schema.js';

/** A scheduled lift as stored. */
export type BanLiftRow = BanLiftsTable;

/** The longest timed ban, in minutes (a year); a longer one is a ban without minutes, lifted by hand. */
export const MAX_BAN_MINUTES = 525_600;

/** The `minutes` of a timed ban in a request body. */
export const BanMinutes = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_BAN_MINUTES, description });
