/**
 * Which part of the breakers board the URL asks for: one bot or all, and, for one bot, the page of
 * older events below an event id. Pure, shared by the page, its JSON route and the poller's key.
 */
import { z } from "zod";

export interface BreakersView {
  bot: string | null;
  before: number | null;
}

const one = (name: string) =>
  z.preprocess(
    (v) => (Array.isArray(v) ? (v.length === 1 ? v[0] : v) : v) ?? undefined,
    z
      .string({ error: `give ${name} once` })
      .trim()
      .transform((s) => (s === "" ? undefined : s))
      .optional(),
  );

const schema = z
  .object({
    bot: one("bot").pipe(z.string().max(200, "is longer than any bot id (200 characters)").optional()),
    before: one("before").pipe(
      z
        .string()
        .regex(/^[1-9]\d{0,15}$/, "must be an event id (a positive whole number)")
        .transform(Number)
        .optional(),
    ),
  })
  .refine((v) => v.before === undefined || v.bot !== undefined, { path: ["before"], message: "pages one bot's history: give bot too" });

type Params = URLSearchParams | Record<string, string | string[] | undefined>;

export function parseBreakersView(params: Params): { ok: true; view: BreakersView } | { ok: false; message: string } {
  const record = params instanceof URLSearchParams ? Object.fromEntries([...new Set(params.keys())].map((k) => [k, params.getAll(k)])) : params;
  const result = schema.safeParse(record);
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
