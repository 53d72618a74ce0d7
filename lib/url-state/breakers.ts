/**
 * Which part of the breakers board the URL asks for: one bot or all, and, for one bot, the page of
 * older events below an event id. Pure, shared by the page, its JSON route and the poller's key.
 */
import { z } from "zod";
import { BOT_ID_MAX } from "../journal/ids";
import { oneSearchParam } from "./search-param-fields";
import { searchParamsRecord, type SearchParamsInput } from "./search-params";

export interface BreakersView {
  bot: string | null;
  before: number | null;
}

const schema = z
  .object({
    bot: oneSearchParam("bot").pipe(z.string().max(BOT_ID_MAX, `is longer than any bot id (${BOT_ID_MAX} characters)`).optional()),
    before: oneSearchParam("before").pipe(
      z
        .string()
        .regex(/^[1-9]\d{0,15}$/, "must be an event id (a positive whole number)")
        .transform(Number)
        .optional(),
    ),
  })
  .refine((v) => v.before === undefined || v.bot !== undefined, { path: ["before"], message: "pages one bot's history: give bot too" });

export function parseBreakersView(params: SearchParamsInput): { ok: true; view: BreakersView } | { ok: false; message: string } {
  const result = schema.safeParse(searchParamsRecord(params));
  if (!result.success) {
    return { ok: false, message: `${result.error.issues.map((i) => `${String(i.path[0] ?? "query")} ${i.message}`).join(". ")}.` };
  }
  return { ok: true, view: { bot: result.data.bot ?? null, before: result.data.before ?? null } };
}

export function breakersViewToQuery(view: BreakersView): string {
  const q = new URLSearchParams();
  if (view.bot) q.set("bot", view.bot);
  if (view.before !== null) q.set("before", String(view.before));
  const s = q.toString();
  return s ? `?${s}` : "";
}
