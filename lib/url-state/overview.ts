/**
 * Sorting and filtering of the overview's symbol lines, driven by the URL so a view can be shared
 * and survives a reload. Pure: the server and the client apply the same rules.
 */
import type { BotStatus } from "../breaker/bot-status";
import type { OverviewLine } from "../queries/overview";
import { firstValue, searchParamsRecord, type SearchParamsInput } from "./search-params";

export const SORTS = ["severity", "symbol", "bot", "notional", "age"] as const;
export type Sort = (typeof SORTS)[number];

export interface OverviewView {
  sort: Sort;
  bot: string | null;
  driftOnly: boolean;
}

/**
 * Never refuses: a view is a preference, and an unknown one falls back to the default. No zod
 * schema here on purpose: this runs in the overview's client bundle, which ships no zod otherwise
 * (about 30 KB gzipped), and a schema that cannot fail would add only that weight.
 */
export function parseOverviewView(params: SearchParamsInput): OverviewView {
  const record = searchParamsRecord(params);
  const sort = firstValue(record.sort);
  return {
    sort: (SORTS as readonly string[]).includes(sort ?? "") ? (sort as Sort) : "severity",
    bot: firstValue(record.bot) || null,
    driftOnly: firstValue(record.drift) === "1",
  };
}

export function viewToQuery(view: OverviewView): string {
  const q = new URLSearchParams();
  if (view.sort !== "severity") q.set("sort", view.sort);
  if (view.bot) q.set("bot", view.bot);
  if (view.driftOnly) q.set("drift", "1");
  const s = q.toString();
  return s ? `?${s}` : "";
}

const rank = { unknown_position: 0, size_drift: 1, none: 2 } as const;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function applyOverviewView(lines: readonly OverviewLine[], view: OverviewView): OverviewLine[] {
  const kept = lines.filter((l) => (view.bot === null || l.botId === view.bot) && (!view.driftOnly || l.drift !== "none"));
  const tie = (a: OverviewLine, b: OverviewLine) => byText(a.symbol, b.symbol) || byText(a.botId, b.botId);
  const cmp: Record<Sort, (a: OverviewLine, b: OverviewLine) => number> = {
    severity: (a, b) => rank[a.drift] - rank[b.drift] || (b.driftNotional ?? 0) - (a.driftNotional ?? 0) || tie(a, b),
    symbol: tie,
    bot: (a, b) => byText(a.botId, b.botId) || byText(a.symbol, b.symbol),
    notional: (a, b) => (b.driftNotional ?? -1) - (a.driftNotional ?? -1) || tie(a, b),
    age: (a, b) => (b.driftForMs ?? -1) - (a.driftForMs ?? -1) || tie(a, b),
  };
  return [...kept].sort(cmp[view.sort]);
}

interface OverviewCardBot {
  status: BotStatus;
  breaker: { halted: boolean } | null;
  /** botStatus's alarms: what says nothing vouches for the bot now. */
  alarms: readonly string[];
  /** Its journal cannot be read now, and it was halted when last read (lib/queries/fleet.ts). */
  lastKnownHalt?: unknown;
}

function botGroup(b: OverviewCardBot): number {
  // A bot halted when its unreadable journal was last read is as good as halted.
  if (b.status === "halted" || b.breaker?.halted || b.lastKnownHalt !== undefined) return 0;
  if (b.status === "drift") return 1;
  if (b.status === "stale" || b.status === "unknown") return 2;
  return 3;
}

/**
 * The order of the overview's bot cards: halted first, so on a phone a halted card is above the
 * fold; then a drift (a disagreement the books show); then the bots nothing vouches for (stale, or
 * unknown: times missing or untrusted, or the books not compared for too long); then the rest. A
 * cycle skipped while a fill settles, or one failed read, leaves a bot its word (lib/breaker/bot-status.ts),
 * so its card no longer swaps places every time an order is in flight. Each group keeps the order
 * it came in (by bot id from the journal). The symbol table's URL sort is separate.
 */
export function orderBotsForOverview<T extends OverviewCardBot>(bots: readonly T[]): T[] {
  return bots
    .map((b, i) => ({ b, i, g: botGroup(b) }))
    .sort((x, y) => x.g - y.g || x.i - y.i)
    .map((x) => x.b);
}
