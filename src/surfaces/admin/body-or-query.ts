import { AppError } from '../../shared/errors.js';

/**
 * The parameters of a DELETE that takes them in its body (as docs/contract.md, Admin API, lists them) or in its query
 * string (as the original's 2023 API documents them). Both parts are declared with every field
 * optional and validated as usual; this picks the part that names any of `fields` and requires each
 * of them there. Naming them in both parts is refused rather than merged: a delete must not guess.
 */
export function bodyOrQuery<T extends object>(body: Partial<T> | undefined, query: Partial<T> | undefined, fields: ReadonlyArray<keyof T & string>): T {
  const names = (part: Partial<T> | undefined): boolean => part !== undefined && fields.some((field) => part[field] !== undefined);
  if (names(body) && names(query)) {
    throw new AppError('parameters', 'Give the parameters in the body or in the query string, not both.', {
      detail: [{ field: 'query', message: 'must be empty when the body names the parameters' }],
    });
  }
  const [part, where] = names(query) ? [query, 'query'] : [body, 'body'];
  const missing = fields.filter((field) => part?.[field] === undefined);
  if (missing.length > 0) {
    const detail = missing.map((field) => ({ field: `${where}.${field}`, message: 'is required' }));
    throw new AppError('parameters', `${detail[0]?.field} is required.`, { detail });
  }
  return part as T;
}
