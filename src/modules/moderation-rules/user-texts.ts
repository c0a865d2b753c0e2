/**
 * Where user text hides in a request. Everything a user writes that others see passes the same rules
 * (moderation.service.ts); these functions list the pieces of a request to check, each with the field
 * an answer names.
 */

/** A piece of user text and where it sits in the request (`data.text`, `tags[0]`, `displayName`). */
export interface CheckedText {
  field: string;
  text: string;
  /**
   * The text is an object key. `field` then names the object holding it, not the key: a path ending
   * in a refused word would repeat the word to whoever wrote it.
   */
  isKey?: boolean;
}

/**
 * Every text of custom data as readers see it: each object key and each string value, with its path,
 * in document order, an object's keys before the values under them. Iterative, so deep nesting cannot
 * overflow the stack.
 */
export function dataTextsOf(value: unknown, path: string, into: CheckedText[] = []): CheckedText[] {
  const stack: Array<[unknown, string]> = [[value, path]];
  while (stack.length > 0) {
    const [item, at] = stack.pop() as [unknown, string];
    if (typeof item === 'string') into.push({ field: at, text: item });
    else if (Array.isArray(item)) {
      for (let index = item.length - 1; index >= 0; index -= 1) stack.push([item[index], `${at}[${index}]`]);
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      for (const [key] of entries) into.push({ field: at, text: key, isKey: true });
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, child] = entries[index] as [string, unknown];
        stack.push([child, `${at}.${key}`]);
      }
    }
  }
  return into;
}

/** A message's labels, which members see beside its text: each tag and the topic id. */
export function labelTextsOf(tags: readonly string[] | undefined, topicId: string | null | undefined, into: CheckedText[]): CheckedText[] {
  if (tags !== undefined) for (let index = 0; index < tags.length; index += 1) into.push({ field: `tags[${index}]`, text: tags[index] as string });
  if (topicId !== undefined && topicId !== null && topicId !== '') into.push({ field: 'topicId', text: topicId });
  return into;
}
