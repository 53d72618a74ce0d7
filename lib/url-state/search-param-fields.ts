/**
 * Zod fields for a URL's search params, one per reading in ./search-params.ts. Every parser in
 * lib/url-state that refuses bad input builds its schema from these.
 */
import { z } from "zod";
import { firstValue, givenTwice, singleValue, type SearchParamValue } from "./search-params";

const single = (v: unknown) => singleValue(v as SearchParamValue);

/**
 * A search param given at most once, trimmed; absent or empty reads as undefined (a GET form
 * sends an empty value for a field left blank). Given twice: "give NAME once".
 */
export const oneSearchParam = (name: string) =>
  z.preprocess(
    single,
    z
      .string({ error: givenTwice(name) })
      .trim()
      .transform((s) => (s === "" ? undefined : s))
      .optional(),
  );

/** The first value of a search param, as written; undefined when absent. Never fails. */
export const firstSearchParam = z.preprocess((v) => firstValue(v as SearchParamValue), z.string().optional());
