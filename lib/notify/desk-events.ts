/**
 * What deserves a desktop notification, and its words: a trip (a bot halted), an unknown position
 * (the exchange holds a position the bot's book does not) and a new doubtful order. Each event has
 * a key that names this occurrence and no other (the breaker's version, the drift's episode, the
 * order's id), so the browser can remember what it already told (localStorage) and a reload, a
 * second tab or the next poll does not tell it again. Pure: the overview's data in, words out.
 */
import { haltCauseText, type CauseOrderSettled } from "../breaker/halt-cause";
import type { BotSummary } from "../queries/bots";
import { formatUtc } from "../text/format";

export interface DeskBot {
  botId: string;
  /** The overview's breaker (lib/queries/bots.ts), of which a notification words the halt; the settled orders may be absent. */
  breaker: (Omit<NonNullable<BotSummary["breaker"]>, "causeOrdersSettled"> & { causeOrdersSettled?: CauseOrderSettled[] | null }) | null;
  newestDoubtful?: { clientOrderId: string; symbol: string }[];
}

export interface DeskLine {
  botId: string;
  symbol: string;
  ours: number;
  theirs: number;
  drift: string;
  driftSince: string | null;
}

/** One thing happening now. `key` is also the notification's tag, so the system shows it once. */
export interface DeskEvent {
  key: string;
  kind: "halt" | "unknown_position" | "doubtful";
  botId: string;
  title: string;
  body: string;
  /** The console page that settles it. */
  href: string;
}

const botPath = (botId: string) => `/bots/${encodeURIComponent(botId)}`;

/** Every notifiable event the data shows now, whether or not it was told before. */
export function deskEvents(snapshot: { bots: readonly DeskBot[]; lines: readonly DeskLine[]; now?: number | Date }): DeskEvent[] {
  const events: DeskEvent[] = [];
  for (const b of snapshot.bots) {
    const k = b.breaker;
    if (k?.halted) {
      const cause = haltCauseText({
        reason: k.reason,
        inSyncSince: k.causeInSyncSince,
        ordersSettled: k.causeOrdersSettled ?? null,
        changedBy: k.changedBy,
        changedAt: k.changedAt,
        now: snapshot.now,
      });
      events.push({
        key: `halt:${b.botId}:${k.version}`,
        kind: "halt",
        botId: b.botId,
        title: `HALTED · ${b.botId}`,
        body: `${b.botId} is halted: ${cause}. Open its page to settle it.`,
        href: botPath(b.botId),
      });
    }
  }
  for (const l of snapshot.lines) {
    if (l.drift !== "unknown_position") continue;
    const since = l.driftSince !== null && !Number.isNaN(Date.parse(l.driftSince)) ? formatUtc(l.driftSince, snapshot.now ?? Date.now()) : null;
    events.push({
      key: `unknown_position:${l.botId}:${l.symbol}:${l.driftSince ?? ""}`,
      kind: "unknown_position",
      botId: l.botId,
      title: `Unknown position · ${l.botId} ${l.symbol}`,
      body: `The exchange holds ${l.theirs} ${l.symbol} that the book of ${l.botId} does not know (book ${l.ours})${since ? ` since ${since}` : ""}.`,
      href: `${botPath(l.botId)}/symbols/${encodeURIComponent(l.symbol)}`,
    });
  }
  for (const b of snapshot.bots) {
    for (const o of b.newestDoubtful ?? []) {
      events.push({
        key: `doubtful:${b.botId}:${o.clientOrderId}`,
        kind: "doubtful",
        botId: b.botId,
        title: `Doubtful order · ${b.botId}`,
        body: `${b.botId} cannot tell whether the exchange has order ${o.clientOrderId} (${o.symbol}): check it on the exchange.`,
        href: `/doubtful?bot=${encodeURIComponent(b.botId)}`,
      });
    }
  }
  return events;
}

/**
 * What to notify now and what to remember, given what was remembered (null: nothing yet, as on
 * the first poll after notifications were turned on, which tells nothing and remembers all, so
 * turning them on during an incident does not replay it). Several new doubtful orders of one bot
 * make one notification. What is remembered is what is current: an event cannot come back with
 * the same key (a new trip has a new breaker version, a new episode a new start, an order settles
 * for good), so nothing older needs keeping.
 */
export function newDeskEvents(current: readonly DeskEvent[], seen: readonly string[] | null): { notify: DeskEvent[]; remember: string[] } {
  const remember = current.map((e) => e.key);
  if (seen === null) return { notify: [], remember };
  const told = new Set(seen);
  const fresh = current.filter((e) => !told.has(e.key));
  const notify: DeskEvent[] = [];
  const doubtfulByBot = new Map<string, DeskEvent[]>();
  for (const e of fresh) {
    if (e.kind !== "doubtful") notify.push(e);
    else doubtfulByBot.set(e.botId, [...(doubtfulByBot.get(e.botId) ?? []), e]);
  }
  for (const [botId, list] of doubtfulByBot) {
    const [first] = list;
    if (!first) continue;
    notify.push(
      list.length === 1
        ? first
        : {
            ...first,
            title: `${list.length} new doubtful orders · ${botId}`,
            body: `${botId} cannot tell whether the exchange has ${list.length} orders: check them on the exchange.`,
          },
    );
  }
  return { notify, remember };
}
