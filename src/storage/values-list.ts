/**
 * `($1, $2), ($3, $4), ...` for a multi-row VALUES list on PostgreSQL, numbered from `first`. The busy
 * batch writers (message creates, the outbox append) send their statements as text and a flat list of
 * parameters (Kysely's CompiledQuery.raw): building them through the query builder walked a node per
 * value, which was a visible share of a PostgreSQL create's CPU. `casts` holds a suffix per column
 * (`::bigint`), for lists whose column types PostgreSQL cannot take from an insert's target.
 */
export function valuesList(rows: number, width: number, first = 1, casts: readonly string[] = []): string {
  const tuples: string[] = new Array(rows);
  let next = first;
  for (let row = 0; row < rows; row += 1) {
    const columns: string[] = new Array(width);
    for (let column = 0; column < width; column += 1) {
      columns[column] = `$${next}${casts[column] ?? ''}`;
      next += 1;
    }
    tuples[row] = `(${columns.join(', ')})`;
  }
  return tuples.join(', ');
}
