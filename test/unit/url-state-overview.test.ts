import { describe, expect, it } from "vitest";
import { applyOverviewView, orderBotsForOverview, parseOverviewView, viewToQuery } from "@/lib/url-state/overview";
import type { BotStatus } from "@/lib/breaker/bot-status";
import type { OverviewLine } from "@/lib/queries/overview";

const line = (botId: string, symbol: string, drift: OverviewLine["drift"], driftNotional: number | null, driftForMs: number | null = null): OverviewLine => ({
  botId,
  symbol,
  drift,
  driftNotional,
  driftForMs,
  ours: 0,
  theirs: 0,
  difference: 0,
  steps: 0,
  qtyStep: 1,
  markPrice: null,
  markAt: null,
  driftSince: null,
  at: "2026-08-10T00:00:00.000Z",
  ack: null,
  ackLapsed: null,
});

const lines = [
  line("a", "AAPL", "none", 0),
  line("a", "ETH", "size_drift", 500, 60_000),
  line("b", "SOL", "unknown_position", 100, 5_000),
  line("b", "BTC", "size_drift", 9_000, 1_000),
];

describe("overview view", () => {
  it("puts unknown positions first, then size drifts by notional, by default", () => {
    expect(applyOverviewView(lines, parseOverviewView(new URLSearchParams())).map((l) => l.symbol)).toEqual(["SOL", "BTC", "ETH", "AAPL"]);
  });

  it("filters by bot and to drifting lines only", () => {
    const v = parseOverviewView(new URLSearchParams("bot=a&drift=1"));
    expect(applyOverviewView(lines, v).map((l) => l.symbol)).toEqual(["ETH"]);
  });

  it("sorts by how long a symbol has drifted", () => {
    expect(applyOverviewView(lines, parseOverviewView(new URLSearchParams("sort=age"))).map((l) => l.symbol)).toEqual(["ETH", "SOL", "BTC", "AAPL"]);
  });

  it("ignores an unknown sort instead of failing", () => {
    expect(parseOverviewView(new URLSearchParams("sort=';drop table")).sort).toBe("severity");
  });

  it("writes only what differs from the default into the URL", () => {
    expect(viewToQuery({ sort: "severity", bot: null, driftOnly: false })).toBe("");
    expect(viewToQuery({ sort: "notional", bot: "b", driftOnly: true })).toBe("?sort=notional&bot=b&drift=1");
  });
});

describe("orderBotsForOverview", () => {
  const bot = (
    botId: string,
    status: BotStatus,
    halted = status === "halted",
    alarms: string[] = status === "stale" ? ["heartbeat is stale"] : status === "unknown" ? ["books not compared for 130 s"] : [],
  ) => ({ botId, status, breaker: { halted }, alarms });

  it("puts a halted bot first even when its id sorts last, then a drift, then stale and unknown, then the rest, each group in the order given", () => {
    const given = [
      bot("alpha", "running"),
      bot("beta", "drift"),
      bot("delta", "unknown", false, ["no heartbeat yet"]),
      bot("gamma", "stale"),
      bot("zulu", "halted"),
    ];
    expect(orderBotsForOverview(given).map((b) => b.botId)).toEqual(["zulu", "beta", "delta", "gamma", "alpha"]);
  });

  it("puts a bot of an unreadable journal with the ones nothing vouches for, or with the halted ones when it was halted when last read", () => {
    // As lib/queries/fleet.ts names them: UNKNOWN, no alarm of their own (the journal's notice says it), no cycle.
    const unread = (botId: string, lastKnownHalt?: object) => ({
      botId,
      status: "unknown" as BotStatus,
      breaker: null,
      alarms: [],
      ...(lastKnownHalt ? { lastKnownHalt } : {}),
    });
    const given = [
      bot("alpha", "running"),
      unread("beta"),
      unread("gamma", { since: "2026-12-05T01:00:00.000Z", reason: "drift", readAt: "2026-12-05T01:10:00.000Z" }),
    ];
    expect(orderBotsForOverview(given).map((b) => b.botId)).toEqual(["gamma", "beta", "alpha"]);
  });

  it("counts a halted breaker as halted whatever the status word, and a bot without a breaker row by its status", () => {
    const given = [{ botId: "a", status: "running" as BotStatus, breaker: null, alarms: [] }, bot("b", "stale", true)];
    expect(orderBotsForOverview(given).map((b) => b.botId)).toEqual(["b", "a"]);
  });

  it("leaves the list it was given untouched", () => {
    const given = [bot("a", "running"), bot("z", "halted")];
    orderBotsForOverview(given);
    expect(given.map((b) => b.botId)).toEqual(["a", "z"]);
  });
});
