import "server-only";
import { clashError, type ConsoleSource, type SourceSet } from "../db/console";
import type { JournalError } from "../db/journal-file";

/**
 * The journal an action is for: the one holding the form's bot, or its order's bot, every source
 * asked (a PostgreSQL one too). With one journal, that one (whose guard refuses an unknown bot as before). A bot in two journals, or in
 * one that cannot be read now, is refused here with the reason.
 */
export async function actionSource(
  set: SourceSet,
  raw: Record<string, unknown>,
): Promise<{ ok: true; source: ConsoleSource } | { ok: false; error: JournalError }> {
  if (!set.several) return { ok: true, source: set.sources[0]! };
  const place =
    typeof raw.botId === "string" && raw.botId !== ""
      ? await set.placeBotRead(raw.botId)
      : typeof raw.clientOrderId === "string" && raw.clientOrderId !== ""
        ? await set.placeOrderRead(raw.clientOrderId)
        : ({ kind: "none" } as const);
  switch (place.kind) {
    case "found":
      return { ok: true, source: place.source };
    case "unavailable":
      return { ok: false, error: place.error };
    case "clash":
      return { ok: false, error: clashError(String(raw.botId), place.sources) };
    case "none":
      // Nothing names it: the first journal's guard refuses it with its own words ("no bot named…").
      return { ok: true, source: set.sources[0]! };
  }
}
