/**
 * A text written by a bot or a person (a halt's reason), closed as one sentence among others: a
 * full stop added, unless it already ends as a sentence does. Banners set one such sentence per
 * bot, so a reason that ends in "." must not read "..".
 */
export function asSentence(text: string): string {
  const trimmed = text.trimEnd();
  if (trimmed === "") return trimmed;
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/**
 * A long text cut to about `max` characters at a word, its trailing punctuation dropped, and
 * `… (shortened; <where>)` after it, so the reader knows there is more and where; a short one unchanged.
 */
export function cutAtWord(text: string, max: number, where: string): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  const kept = (space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.(–—-]+$/, "");
  // A bracket the cut left open is closed after the ellipsis: "error (bybit GET… (shortened; …)"
  // never closed its first one (a try-out).
  return `${kept}…${unclosed(kept)} (shortened; ${where})`;
}

const CLOSING: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/** The closing brackets `text` leaves open, innermost first. */
function unclosed(text: string): string {
  const open: string[] = [];
  for (const ch of text) {
    if (ch in CLOSING) open.push(CLOSING[ch]!);
    else if (ch === open.at(-1)) open.pop();
  }
  return open.reverse().join("");
}
