/**
 * Text typed by people or bots (notes, reasons, targets, audit detail) shown as what it is. A
 * right-to-left override (U+202E) makes `alpha cleared` read backwards and can reorder a whole
 * line of the audit log; other direction marks and control characters hide or move text the same
 * way. Each one becomes a visible marker such as `⟨U+202E⟩`. Newlines and tabs stay: notes may
 * have several lines.
 */

/**
 * C0 controls but tab, line feed and carriage return; DEL and the C1 controls; the Arabic letter
 * mark; left-to-right and right-to-left marks; the bidi embeddings, overrides and isolates.
 */
const INVISIBLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/** Every invisible direction or control character replaced by `⟨U+XXXX⟩`. */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (ch) => `⟨${codePoint(ch)}⟩`);
}

/** The first invisible direction or control character in the text, as `U+XXXX`, or null. */
export function firstInvisible(text: string): string | null {
  const m = text.match(new RegExp(INVISIBLE.source));
  return m ? codePoint(m[0]) : null;
}
