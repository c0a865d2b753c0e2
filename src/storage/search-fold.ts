/**
 * Lower case as the users search compares it, on both sides (SQLite's `lower()` is this function, see
 * database.ts): JavaScript's full lower case, with a final sigma read as a sigma and a dotted capital
 * I as a plain i. JavaScript writes "ΟΔΟΣ" as "οδος" and a prefix "ΑΣ" as "ας" (final sigma at the end
 * of the text), where a name holds "σ", and PostgreSQL's lower() writes "σ" everywhere.
 */
export function searchFold(text: string): string {
  return text
    .toLowerCase()
    .replace(/ς/g, 'σ')
    .replace(/i\u0307/g, 'i');
}
