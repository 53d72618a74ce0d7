import { describe, expect, it } from "vitest";
import { deskEvents, newDeskEvents, type DeskBot, type DeskLine } from "@/lib/notify/desk-events";

const running: DeskBot = {
  botId: "alpha",
  breaker: { halted: false, reason: null, changedAt: "2026-12-01T05:00:00.000Z", changedBy: "bot", version: 1, causeInSyncSince: null },
};
const tripped: DeskBot = {
  botId: "alpha",
  breaker: { halted: true, reason: "unknown position ETHUSDT +3", changedAt: "2026-12-01T05:10:00.000Z", changedBy: "bot", version: 2, causeInSyncSince: null },
};
const unknownEth: DeskLine = { botId: "alpha", symbol: "ETHUSDT", ours: 0, theirs: 3, drift: "unknown_position", driftSince: "2026-12-01T05:09:58.000Z" };
const inSync: DeskLine = { botId: "alpha", symbol: "BTCUSDT", ours: 0.5, theirs: 0.5, drift: "none", driftSince: null };

describe("deskEvents: the words of each notification", () => {
  it("names the halted bot and its cause, and leads to the bot's page", () => {
    expect(deskEvents({ bots: [tripped], lines: [] })).toEqual([
      {
        key: "halt:alpha:2",
        kind: "halt",
        botId: "alpha",
        title: "HALTED · alpha",
        body: "alpha is halted: unknown position ETHUSDT +3. Open its page to settle it.",
        href: "/bots/alpha",
      },
    ]);
  });

  it("words a hand-made halt as who, when and why", () => {
    const hand: DeskBot = { botId: "b/1", breaker: { ...tripped.breaker!, reason: "halted by hand: maintenance", changedBy: "operator:ana" } };
    const [e] = deskEvents({ bots: [hand], lines: [], now: Date.parse("2026-12-01T06:00:00Z") });
    expect(e?.body).toBe("b/1 is halted: halted by hand by operator:ana at 05:10:00 UTC: maintenance. Open its page to settle it.");
    // Read on another day, the time says its date.
    const [later] = deskEvents({ bots: [hand], lines: [], now: Date.parse("2026-12-03T06:00:00Z") });
    expect(later?.body).toBe("b/1 is halted: halted by hand by operator:ana at Dec 1 05:10:00 UTC: maintenance. Open its page to settle it.");
    expect(e?.href).toBe("/bots/b%2F1");
  });

  it("says so once the order a trip names is settled, as the bot card does", () => {
    const lost: DeskBot = {
      botId: "alpha",
      breaker: {
        ...tripped.breaker!,
        reason: "order a1-7 unknown: lookup failed",
        causeOrdersSettled: [{ clientOrderId: "a1-7", state: "filled", at: "2026-12-01T05:20:01.000Z", by: "operator:ana", how: "lookup" }],
      },
    };
    const [e] = deskEvents({ bots: [lost], lines: [], now: Date.parse("2026-12-01T06:00:00Z") });
    expect(e?.body).toBe(
      "alpha is halted: tripped on order a1-7 unknown: lookup failed; settled at 05:20:01 UTC: filled (by operator:ana, on the exchange). Open its page to settle it.",
    );
  });

  it("names an unknown position's bot, symbol, both sides and since when, and leads to the symbol page", () => {
    expect(deskEvents({ bots: [running], lines: [inSync, unknownEth], now: Date.parse("2026-12-01T06:00:00Z") })).toEqual([
      {
        key: "unknown_position:alpha:ETHUSDT:2026-12-01T05:09:58.000Z",
        kind: "unknown_position",
        botId: "alpha",
        title: "Unknown position · alpha ETHUSDT",
        body: "The exchange holds 3 ETHUSDT that the book of alpha does not know (book 0) since 05:09:58 UTC.",
        href: "/bots/alpha/symbols/ETHUSDT",
      },
    ]);
  });

  it("names a doubtful order by bot, id and symbol, and leads to the doubtful list of that bot", () => {
    const [e] = deskEvents({ bots: [{ ...running, newestDoubtful: [{ clientOrderId: "al1-7", symbol: "AAPL" }] }], lines: [] });
    expect(e).toMatchObject({
      key: "doubtful:alpha:al1-7",
      title: "Doubtful order · alpha",
      body: "alpha cannot tell whether the exchange has order al1-7 (AAPL): check it on the exchange.",
      href: "/doubtful?bot=alpha",
    });
  });

  it("finds nothing to tell about running bots in sync", () => {
    expect(deskEvents({ bots: [running, { botId: "beta", breaker: null }], lines: [inSync] })).toEqual([]);
  });
});

describe("newDeskEvents: what is new since last time", () => {
  it("tells nothing on the first look, and remembers everything current, so turning notifications on does not replay an incident", () => {
    const now = deskEvents({ bots: [tripped], lines: [unknownEth] });
    expect(newDeskEvents(now, null)).toEqual({ notify: [], remember: ["halt:alpha:2", now[1]!.key] });
  });

  it("tells a trip once: the next look at the same halt tells nothing", () => {
    const before = newDeskEvents(deskEvents({ bots: [running], lines: [] }), null).remember;
    const first = newDeskEvents(deskEvents({ bots: [tripped], lines: [] }), before);
    expect(first.notify.map((e) => e.key)).toEqual(["halt:alpha:2"]);
    expect(newDeskEvents(deskEvents({ bots: [tripped], lines: [] }), first.remember).notify).toEqual([]);
  });

  it("tells a new trip of the same bot (a new breaker version) again", () => {
    const seen = ["halt:alpha:2"];
    const again: DeskBot = { botId: "alpha", breaker: { ...tripped.breaker!, version: 4 } };
    expect(newDeskEvents(deskEvents({ bots: [again], lines: [] }), seen).notify.map((e) => e.key)).toEqual(["halt:alpha:4"]);
  });

  it("tells a new episode of an unknown position on the same symbol again", () => {
    const seen = [`unknown_position:alpha:ETHUSDT:${unknownEth.driftSince}`];
    const later = { ...unknownEth, driftSince: "2026-12-01T06:00:00.000Z" };
    expect(newDeskEvents(deskEvents({ bots: [running], lines: [later] }), seen).notify).toHaveLength(1);
  });

  it("forgets what is over, keeping only what is current", () => {
    expect(newDeskEvents(deskEvents({ bots: [running], lines: [] }), ["halt:alpha:2"]).remember).toEqual([]);
  });

  it("tells only the doubtful orders not told before, several of one bot in one notification", () => {
    const bot = (ids: string[]): DeskBot => ({ ...running, newestDoubtful: ids.map((clientOrderId) => ({ clientOrderId, symbol: "AAPL" })) });
    const seen = newDeskEvents(deskEvents({ bots: [bot(["al1-1"])], lines: [] }), null).remember;
    const one = newDeskEvents(deskEvents({ bots: [bot(["al1-2", "al1-1"])], lines: [] }), seen);
    expect(one.notify.map((e) => e.title)).toEqual(["Doubtful order · alpha"]);
    expect(one.notify[0]?.body).toContain("al1-2");
    const three = newDeskEvents(deskEvents({ bots: [bot(["al1-5", "al1-4", "al1-3", "al1-2"])], lines: [] }), one.remember);
    expect(three.notify).toHaveLength(1);
    expect(three.notify[0]).toMatchObject({
      key: "doubtful:alpha:al1-5",
      title: "3 new doubtful orders · alpha",
      body: "alpha cannot tell whether the exchange has 3 orders: check them on the exchange.",
      href: "/doubtful?bot=alpha",
    });
    expect(three.remember).toEqual(["doubtful:alpha:al1-5", "doubtful:alpha:al1-4", "doubtful:alpha:al1-3", "doubtful:alpha:al1-2"]);
  });
});
