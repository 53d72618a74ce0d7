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
