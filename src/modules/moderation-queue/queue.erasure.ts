import type { Executor } from '../../storage/database.js';
import { createReviewRewrites } from './queue.store.js';

/*
 * An erasure keeps the queue's decisions and drops the person: where the user was the reviewed author,
 * the reviewed user or the reviewer, `placeholder` stands, and their flags leave the snapshots (as
 * their open flags are deleted). Each call rewrites one bounded batch in the caller's transaction `trx`
 * and answers what the caller needs to run the next one.
 */

/**
 * Reviews of the user's messages name `placeholder` as author; `dropText` (delete mode) also removes
 * the text kept of the message, which anonymise mode keeps as it keeps the message. Answers how many.
 */
export function replaceReviewedAuthor(trx: Executor, userId: string, placeholder: string, dropText: boolean, limit: number): Promise<number> {
  return createReviewRewrites(trx).replaceReviewedAuthor(userId, placeholder, dropText, limit);
}

/** Reviews of the user as a flagged user name `placeholder`; answers how many. */
export function replaceReviewedUser(trx: Executor, userId: string, placeholder: string, limit: number): Promise<number> {
  return createReviewRewrites(trx).replaceReviewedUser(userId, placeholder, limit);
}

/** Reviews the user made from the console name `placeholder` as reviewer; answers how many. */
export function replaceReviewer(trx: Executor, userId: string, placeholder: string, limit: number): Promise<number> {
  return createReviewRewrites(trx).replaceReviewer(userId, placeholder, limit);
}

/**
 * The user's entries leave the flags snapshots of the reviews after `afterId`, in id order; answers
 * the last id looked at, where the next batch starts, or null when none is left.
 */
export function dropSnapshotFlagsOf(trx: Executor, userId: string, afterId: string, limit: number): Promise<string | null> {
  return createReviewRewrites(trx).dropSnapshotFlags(userId, afterId, limit);
}
