/**
 * The free-text fields of actions (notes, reasons) refuse invisible direction and control
 * characters: they would make the journal and the audit log display something other than what
 * was typed. Line breaks and tabs stay allowed.
 */
import { z } from "zod";
import { firstInvisible } from "../text/visible-text";

export const withoutInvisible = (field: string) => (value: string, ctx: z.RefinementCtx) => {
  const found = firstInvisible(value);
  if (found) ctx.addIssue({ code: "custom", message: `The ${field} contains an invisible direction or control character (${found}); remove it.` });
};

/** The bounds of every note and reason an operator writes: long enough to say something, short enough to read. */
export const NOTE_MIN = 5;
export const NOTE_MAX = 1000;

/**
 * A note or reason: trimmed, NOTE_MIN to NOTE_MAX characters, no invisible characters. `ask` says
 * what to write, for the too-short message ("Say what you checked").
 */
export function noteField(opts: { field: "note" | "reason"; ask: string }) {
  return z
    .string()
    .trim()
    .min(NOTE_MIN, `${opts.ask} (at least ${NOTE_MIN} characters)`)
    .max(NOTE_MAX, `Keep the ${opts.field} under ${NOTE_MAX} characters`)
    .superRefine(withoutInvisible(opts.field));
}

/**
 * A size the operator saw, sent back by the form: blank or null is missing, never 0 (`Number("")` is
 * 0, a size the line may well have), so a form that lost a field is refused, not read as "flat".
 */
export const seenSizeField = (what: string) =>
  z.preprocess(
    (v) => (v === null || (typeof v === "string" && v.trim() === "") ? undefined : v),
    z.coerce.number({ error: `Missing ${what}` }).refine(Number.isFinite, `Missing ${what}`),
  );
