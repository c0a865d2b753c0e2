/**
 * The tray's message templates, every row of which is written out in docs/contract.md, Notification
 * tray. Names come latest first; with four or more actors the third name becomes the count of the
 * others (actorsCount - 2).
 */
export type TrayVerb = 'post' | 'comment' | 'like';

export const TRAY_VERBS: readonly TrayVerb[] = ['post', 'comment', 'like'];

export function isTrayVerb(value: string): value is TrayVerb {
  return (TRAY_VERBS as readonly string[]).includes(value);
}

/** "A", "A and B", "A, B and C", "A, B and N others". */
export function actorPhrase(names: readonly string[], actorsCount: number): string {
  const [first = '', second = '', third = ''] = names;
  if (actorsCount >= 4) return `${first}, ${second} and ${actorsCount - 2} others`;
  if (actorsCount === 3) return `${first}, ${second} and ${third}`;
  if (actorsCount === 2) return `${first} and ${second}`;
  return first;
}

export function describeRecord(input: { verb: TrayVerb; names: readonly string[]; actorsCount: number; communityName: string | null }): string {
  const who = actorPhrase(input.names, input.actorsCount);
  const inCommunity = input.communityName === null ? '' : ` in ${input.communityName}`;
  switch (input.verb) {
    case 'post':
      // docs/contract.md, Notification tray: "posted in", except "created post in" for exactly two actors.
      return `${who} ${input.actorsCount === 2 ? 'created post in' : 'posted in'} ${input.communityName ?? ''}`.trimEnd();
    case 'comment':
      return `${who} commented on your post${inCommunity}`;
    case 'like':
      return `${who} ${input.actorsCount === 1 ? 'likes' : 'like'} your post${inCommunity}`;
  }
}
