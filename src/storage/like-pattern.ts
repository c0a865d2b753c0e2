/** LIKE treats `%` and `_` as wildcards and `\` as the escape (stated with ESCAPE '\' on both databases): a search for "50%" must find the literal text. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** A LIKE pattern for text holding `fragment` anywhere, its wildcards taken literally. */
export function containingPattern(fragment: string): string {
  return `%${escapeLike(fragment)}%`;
}
