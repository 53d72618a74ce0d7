/**
 * A bot id or a symbol as it arrives in a URL (a path segment or `?bot=`), checked the way the
 * actions check them: the routes answer a 400 naming the problem instead of quietly searching for
 * something no journal can hold. Pure, shared by the JSON routes and the pages.
 */

// The longest ids the actions accept, so a link one side makes the other reads.
import { BOT_ID_MAX, SYMBOL_MAX } from "../journal/ids";
import { givenTwice, singleValue } from "./search-params";

// Control characters (NUL, CR, LF, …) are in no id a person could type or the console could show.
export const CONTROL = /[\u0000-\u001f\u007f]/;

export type PathIdParse = { ok: true; value: string } | { ok: false; message: string };

export function parsePathId(kind: "bot id" | "symbol", raw: string | null | undefined): PathIdParse {
  const max = kind === "bot id" ? BOT_ID_MAX : SYMBOL_MAX;
  if (raw === null || raw === undefined || raw.trim() === "") return { ok: false, message: `the ${kind} is missing` };
  if (raw.length > max) return { ok: false, message: `the ${kind} is ${raw.length} characters long; no ${kind} is longer than ${max}` };
  if (CONTROL.test(raw)) return { ok: false, message: `the ${kind} contains a control character (such as %00 or a line break); no ${kind} does` };
  return { ok: true, value: raw };
}

/**
 * `?bot=` (every value, as `getAll` returns them): absent or empty means every bot; given twice is
 * a mistake, not a choice of the first; otherwise checked as written, like a path segment.
 */
export function parseBotFilter(values: readonly string[]): PathIdParse | { ok: true; value: null } {
  // Plain code, not a zod field: the bot page's not-found (a client component) imports this module.
  const one = singleValue(values.length === 0 ? undefined : [...values]);
  if (Array.isArray(one)) return { ok: false, message: givenTwice("bot") };
  if (one === undefined || one === "") return { ok: true, value: null };
  return parsePathId("bot id", one);
}

/**
 * A dynamic segment as a page component receives it. Next 16.4 hands page components their params
 * still percent-encoded (route handlers and generateMetadata get them decoded), so `/bots/a%20b`
 * would look for a bot called `a%20b`. Decode once; a malformed escape is kept as written, since a
 * page must answer "no such bot" rather than throw.
 */
export function decodePageParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
