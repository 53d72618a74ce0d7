/**
 * A URL's search params as the screens' zod schemas read them. Pages get Next's `searchParams`
 * record, routes and client components a URLSearchParams; both become one record, and each field
 * says which of two readings it wants:
 * - `oneSearchParam`: given at most once. A repeated key is a mistake the reader is told about
 *   ("give bot once"), not a silent choice of the first value. For views that refuse bad input.
 * - `firstSearchParam`: the first value, as `URLSearchParams.get` reads it. For views that never
 *   refuse (a sort order is a preference; an unknown one falls back to the default).
 * Pure, shared by every parser in lib/url-state/.
 */
import { z } from "zod";

/** What a page's `searchParams` or a route's `URL.searchParams` hands over. */
export type SearchParamsInput = URLSearchParams | Record<string, string | string[] | undefined>;

export type SearchParamsRecord = Record<string, string | string[] | undefined>;

/** One record: a key given once holds its string, a key given more than once all its values in order. */
export function searchParamsRecord(params: SearchParamsInput): SearchParamsRecord {
  if (!(params instanceof URLSearchParams)) return params;
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

const single = (v: unknown) => (Array.isArray(v) ? (v.length === 1 ? v[0] : v) : v) ?? undefined;

/**
 * A search param given at most once, trimmed; absent or empty reads as undefined (a GET form
 * sends an empty value for a field left blank). Given twice: "give NAME once".
 */
export const oneSearchParam = (name: string) =>
  z.preprocess(
    single,
    z
      .string({ error: `give ${name} once` })
      .trim()
      .transform((s) => (s === "" ? undefined : s))
      .optional(),
  );

/** The same, untrimmed and with an empty value kept: for an id checked as written (lib/url-state/path-ids.ts). */
export const oneSearchParamAsWritten = (name: string) => z.preprocess(single, z.string({ error: `give ${name} once` }).optional());

/** The first value of a search param, as written; undefined when absent. Never fails. */
export const firstSearchParam = z.preprocess((v) => (Array.isArray(v) ? v[0] : v), z.string().optional());
