/**
 * Prose wraps at spaces; an id (a client order id, a hash, a path) may break anywhere, but only in
 * its own element, so the sentence around it never splits a word. This finds the ids in a text.
 */

export interface TextPiece {
  text: string;
  /** A long token with a digit or an id's punctuation (`-`, `_`, `:`, `/`, `.`): allowed to break anywhere. */
  id: boolean;
}

// Twelve characters and more, with a digit or an id's punctuation inside: "beta-d802a55a0df8ed0d3231",
// "hmac-sha256:…", "/tmp/x/journal.db", "reconciliation_positions". Words of prose have neither.
const ID_TOKEN = /(?=[^\s]*[\d_:/.-][^\s]*)[^\s]{12,}/g;

/** The text cut at each match of `re` (global): the matches and the text between them, in order; joined again they give the text back exactly. */
function splitAt(text: string, re: RegExp): { text: string; match: boolean }[] {
  const out: { text: string; match: boolean }[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index), match: false });
    out.push({ text: m[0], match: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), match: false });
  return out;
}

/** The text cut into prose and ids, in order; joined again they give the text back exactly. */
export function splitIds(text: string): TextPiece[] {
  return splitAt(text, ID_TOKEN).map((p) => ({ text: p.text, id: p.match }));
}

/**
 * An id cut after each `/`, `?`, `&`, `=` and `_`: the places a line may break first (a screen puts
 * a <wbr> between the parts), so a URL breaks as ".../v5/order/" + "realtime?..." and only a part
 * too long for the line breaks inside. Joined again they give the id back exactly.
 */
export function idBreaks(id: string): string[] {
  return id.split(/(?<=[/?&=_])(?=.)/);
}

/** A number and its unit, and a run of them, as lib/text/format.ts writes durations: "114 d 23 h", "5 min 0 s". */
const DURATION_RUN = /\d[\d,.]* (?:d|h|min|s)\b(?: \d[\d,.]* (?:d|h|min|s)\b)*/g;

/**
 * A text's words in pieces, each run of number-unit pairs one piece (`whole`) that a screen keeps on
 * one line: a narrow box may wrap "not yet (114 d 23 h so far)" between words, never inside
 * "114 d 23 h" (components/ui/duration-text.tsx).
 */
export function durationPieces(text: string): { text: string; whole: boolean }[] {
  return splitAt(text, DURATION_RUN).map((p) => ({ text: p.text, whole: p.match }));
}

/**
 * A JSON object or array on one line with a space after each comma and colon, so a phone wraps it
 * between fields, not inside a time ("2026-12-05T0" | "3:12:41Z", a try-out on /doubtful); any
 * other text as it is. Only the layout's whitespace changes: strings keep their escapes.
 */
export function spacedJson(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (value === null || typeof value !== "object") return text;
  // Indented, the only newlines are the layout's (JSON escapes those inside strings).
  return JSON.stringify(value, null, 1).replace(/\n */g, " ");
}
