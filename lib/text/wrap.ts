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

/** The text cut into prose and ids, in order; joined again they give the text back exactly. */
export function splitIds(text: string): TextPiece[] {
  const out: TextPiece[] = [];
  let last = 0;
  for (const m of text.matchAll(ID_TOKEN)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index), id: false });
    out.push({ text: m[0], id: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), id: false });
  return out;
}
