/**
 * A URL's search params as the screens read them. Pages get Next's `searchParams` record, routes
 * and client components a URLSearchParams; both become one record, and each value is read one of
 * two ways:
 * - given at most once (`singleValue`): a repeated key is a mistake the reader is told about
 *   ("give bot once"), not a silent choice of the first value. For views that refuse bad input.
 * - its first value (`firstValue`), as `URLSearchParams.get` reads it. For views that never refuse
 *   (a sort order is a preference; an unknown one falls back to the default).
 * The zod fields built on these are in ./search-param-fields.ts. This module imports no zod, so
 * the overview's client bundle can read its URL without shipping a schema library.
 */

/** What a page's `searchParams` or a route's `URL.searchParams` hands over. */
export type SearchParamsInput = URLSearchParams | Record<string, string | string[] | undefined>;

export type SearchParamValue = string | string[] | undefined;

/** One record: a key given once holds its string, a key given more than once all its values in order. */
export function searchParamsRecord(params: SearchParamsInput): Record<string, SearchParamValue> {
  if (!(params instanceof URLSearchParams)) return params;
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

/** The first value, as `URLSearchParams.get` reads it; undefined when absent. */
export function firstValue(value: SearchParamValue): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** What a reader is told when a key meant to be given once came more than once. */
export const givenTwice = (name: string) => `give ${name} once`;

/** A one-value list unwrapped to its string; a repeated key stays a list, for the schema to refuse. */
export function singleValue(value: SearchParamValue): string | string[] | undefined {
  return Array.isArray(value) && value.length === 1 ? value[0] : value;
}
