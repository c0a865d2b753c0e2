/**
 * SQLite allows 32,766 bound values in a statement, PostgreSQL 65,535: a long list of ids in an
 * `in (...)` is read in chunks of this many.
 */
export const ID_CHUNK = 900;

export function chunks<T>(items: readonly T[], size = ID_CHUNK): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}
