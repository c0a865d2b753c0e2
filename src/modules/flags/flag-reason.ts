import { AppError } from '../../shared/errors.js';

/** The longest reason a flag keeps, in characters after trimming. */
export const MAX_FLAG_REASON = 500;

/**
 * The reason a flag stores: the text trimmed, or null when none was given. Text that is only
 * whitespace is refused (422), as is one over 500 characters once trimmed.
 */
export function flagReasonOf(reason: string | undefined): string | null {
  if (reason === undefined) return null;
  const trimmed = reason.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_FLAG_REASON) {
    const message = `must be 1 to ${MAX_FLAG_REASON} characters once trimmed`;
    throw new AppError('parameters', `reason ${message}.`, { detail: [{ field: 'body.reason', message }] });
  }
  return trimmed;
}
