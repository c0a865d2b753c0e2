/** Ready-made notes for a decision: the reasons moderators give most, picked instead of typed. */
export const COMMON_NOTES: readonly string[] = [
  'Spam or advertising',
  'Harassment or abuse',
  'Hate speech',
  'Off topic',
  'Personal information shared',
  'Not a violation',
  'Duplicate report',
  'Warned the author',
];
