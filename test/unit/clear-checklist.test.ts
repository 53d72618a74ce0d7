import { describe, expect, it } from "vitest";
import { clearChecklist, heartbeatItem, unmet, type ClearFacts, type UnacknowledgedDrift } from "@/lib/breaker/clear-checklist";

const now = new Date("2026-08-10T15:31:00.000Z");
const trippedAt = "2026-08-10T15:20:00.000Z";
/** A halted bot that may be cleared: every item holds. */
const ready: ClearFacts = {
  now,
  botId: "beta",
  lastDrifts: [],
  cycleMs: 10_000,
  breaker: { halted: true, version: 3, changedAt: trippedAt, reason: "unknown position ETHUSDT +3" },
  lastReconciliation: { id: 12, at: "2026-08-10T15:30:50.000Z", outcome: "clean" },
  heartbeatAt: "2026-08-10T15:30:55.000Z",
  heartbeatStaleMs: 60_000,
  doubtfulOrders: 0,
  unacknowledgedDrifts: [],
};
const drift: UnacknowledgedDrift = {
  symbol: "ETHUSDT",
  drift: "unknown_position",
  reconciliationId: 9,
  at: "2026-08-10T15:25:00.000Z",
  ours: 0,
  theirs: 3,
  cycles: 2,
  ongoing: false,
};
const blocking = (f: ClearFacts) => unmet(clearChecklist(f)).map((i) => i.key);

describe("clearChecklist: may this halt be cleared", () => {
  it("allows the clear when every item holds", () => {
    expect(clearChecklist(ready).map((i) => [i.key, i.met])).toEqual([
      ["reconciliation", true],
      ["doubtful", true],
      ["drifts", true],
      ["heartbeat", true],
    ]);
  });

  it("refuses while an order is doubtful, and says how many", () => {
    const items = clearChecklist({ ...ready, doubtfulOrders: 2 });
    expect(unmet(items).map((i) => [i.key, i.detail])).toEqual([["doubtful", "2 doubtful orders: resolve them first"]]);
  });

  it("refuses until a reconciliation newer than the trip came back clean", () => {
    expect(blocking({ ...ready, lastReconciliation: null })).toEqual(["reconciliation"]);
    expect(blocking({ ...ready, lastReconciliation: { id: 8, at: trippedAt, outcome: "clean" } })).toEqual(["reconciliation"]);
    expect(blocking({ ...ready, lastReconciliation: { id: 12, at: "2026-08-10T15:30:50.000Z", outcome: "drift" } })).toEqual(["reconciliation"]);
  });

  it("refuses while a drift since the trip is unacknowledged, naming its symbol", () => {
    const items = clearChecklist({ ...ready, unacknowledgedDrifts: [drift] });
    expect(unmet(items).map((i) => i.key)).toEqual(["drifts"]);
    expect(unmet(items)[0]!.detail).toMatch(/^not acknowledged: ETHUSDT/);
  });

  it("says where to acknowledge a drift once: the detail names the symbols, the fix says where", () => {
    for (const ongoing of [false, true]) {
      const [item] = unmet(clearChecklist({ ...ready, unacknowledgedDrifts: [{ ...drift, ongoing }] }));
      expect(item!.detail).toBe("not acknowledged: ETHUSDT");
      expect(item!.fix).toMatch(/acknowledge/i);
    }
  });

  it("refuses without a heartbeat, with a stale one, and with one from a bot clock too far ahead", () => {
    expect(blocking({ ...ready, heartbeatAt: null })).toEqual(["heartbeat"]);
    expect(blocking({ ...ready, heartbeatAt: "2026-08-10T15:29:59.999Z" })).toEqual(["heartbeat"]);
    expect(blocking({ ...ready, heartbeatAt: "2026-08-10T15:30:00.000Z" })).toEqual([]);
    expect(blocking({ ...ready, heartbeatAt: "2026-08-10T15:31:10.000Z" })).toEqual([]);
    expect(blocking({ ...ready, heartbeatAt: "2026-08-10T15:31:10.001Z" })).toEqual(["heartbeat"]);
  });

  it("lists every unmet item at once, so the operator sees all that is left to do", () => {
    expect(blocking({ ...ready, lastReconciliation: null, doubtfulOrders: 1, unacknowledgedDrifts: [drift], heartbeatAt: null })).toEqual([
      "reconciliation",
      "doubtful",
      "drifts",
      "heartbeat",
    ]);
  });

  it("says what puts each unmet item right, and nothing once it is met", () => {
    expect(clearChecklist(ready).map((i) => i.fix)).toEqual([null, null, null, null]);
    const fixes = (f: ClearFacts) => Object.fromEntries(unmet(clearChecklist(f)).map((i) => [i.key, { fix: i.fix, href: i.link?.href }]));
    const all = fixes({
      ...ready,
      lastReconciliation: { id: 12, at: "2026-08-10T15:30:50.000Z", outcome: "drift" },
      lastDrifts: [{ symbol: "NVDA", ours: 148, theirs: 89 }],
      doubtfulOrders: 1,
      unacknowledgedDrifts: [{ ...drift, ongoing: true }],
      heartbeatAt: null,
    });
    expect(all).toEqual({
      reconciliation: { fix: "Correct the book below, or put the position right on the venue; the bot reconciles every 10 s.", href: undefined },
      doubtful: { fix: expect.stringMatching(/^Settle each on the doubtful list/), href: "/doubtful?bot=beta" },
      drifts: { fix: expect.stringContaining("correct the book below"), href: "/?bot=beta&drift=1" },
      heartbeat: { fix: "The bot process is not running or cannot write to the journal: check it.", href: undefined },
    });
  });

  it("says an operator does it, for a reader who is offered no action, wherever the fix asks the reader to act", () => {
    const items = [
      ...clearChecklist({
        ...ready,
        lastReconciliation: { id: 12, at: "2026-08-10T15:30:50.000Z", outcome: "drift" },
        lastDrifts: [{ symbol: "NVDA", ours: 148, theirs: 89 }],
        doubtfulOrders: 1,
        unacknowledgedDrifts: [{ ...drift, ongoing: true }],
      }),
      ...clearChecklist({ ...ready, unacknowledgedDrifts: [{ ...drift, ongoing: false }] }),
    ];
    const forViewers = items.filter((i) => i.viewerFix !== undefined);
    expect(forViewers.map((i) => i.key)).toEqual(["reconciliation", "doubtful", "drifts", "drifts"]);
    for (const i of forViewers) {
      expect(i.viewerFix).toMatch(/^An operator /);
      expect(i.viewerFix).not.toContain("below");
    }
    expect(forViewers[0]!.viewerFix).toContain("the bot reconciles every 10 s");
    // Every fix that points below has one: a viewer is shown no form there.
    expect(items.filter((i) => i.fix?.includes("below") && i.viewerFix === undefined)).toEqual([]);
    expect(items.find((i) => i.key === "doubtful")!.detail).toBe("1 doubtful order: resolve it first");
  });

  it("names the drifting symbols with both sizes when the last reconciliation drifted", () => {
    const [rec] = unmet(
      clearChecklist({
        ...ready,
        lastReconciliation: { id: 12, at: "2026-08-10T15:30:50.000Z", outcome: "drift" },
        lastDrifts: [
          { symbol: "AAPL", ours: -2, theirs: 0 },
          { symbol: "NVDA", ours: 148, theirs: 89 },
        ],
      }),
    );
    expect(rec!.detail).toBe("the last one, at 15:30:50 UTC, was drift: AAPL book -2 vs exchange 0; NVDA book +148 vs exchange +89");
  });

  it("asks for a correction when the cycle that tripped drifted, though it is not newer than the trip", () => {
    const [rec] = unmet(
      clearChecklist({ ...ready, lastReconciliation: { id: 8, at: trippedAt, outcome: "drift" }, lastDrifts: [{ symbol: "NVDA", ours: 148, theirs: 89 }] }),
    );
    expect(rec).toMatchObject({
      detail: "the last one (15:20:00 UTC) is not newer than the trip, and it drifted: NVDA book +148 vs exchange +89",
      fix: "Correct the book below, or put the position right on the venue; the bot reconciles every 10 s.",
    });
  });

  it("says to wait for the next cycle, at the bot's pace, when no reconciliation is newer than the trip", () => {
    const [rec] = unmet(clearChecklist({ ...ready, lastReconciliation: { id: 8, at: trippedAt, outcome: "clean" }, cycleMs: 2_500 }));
    expect(rec!.fix).toBe(
      "Wait for the bot's next reconciliation (the bot reconciles every 2.5 s); if none comes, the bot process is not running or cannot write: check it.",
    );
    const [first] = unmet(clearChecklist({ ...ready, lastReconciliation: null, cycleMs: null }));
    expect(first!.fix).toContain("the bot reconciles every cycle");
  });

  it("points a skipped reconciliation at the doubtful list, and a failed one at the venue connection", () => {
    const at = "2026-08-10T15:30:50.000Z";
    const [skipped] = unmet(clearChecklist({ ...ready, lastReconciliation: { id: 12, at, outcome: "skipped" } }));
    expect(skipped).toMatchObject({ fix: expect.stringContaining("while its orders settle"), link: { href: "/doubtful?bot=beta" } });
    const [failed] = unmet(clearChecklist({ ...ready, lastReconciliation: { id: 12, at, outcome: "error" } }));
    expect(failed!.fix).toContain("could not read the exchange's positions: check its connection to the venue");
  });

  it("a heartbeat from the future asks for the bot's clock to be set right", () => {
    const [beat] = unmet(clearChecklist({ ...ready, heartbeatAt: "2026-08-10T15:35:00.000Z" }));
    expect(beat!.fix).toMatch(/clock is ahead/);
  });
});

describe("heartbeatItem: the heartbeat's age in words a person reads at a glance", () => {
  it("says a heartbeat months old in days and hours, not in millions of seconds", () => {
    const item = heartbeatItem({ ageMs: 9_814_170_000, limitMs: 60_000 });
    expect(item).toMatchObject({ met: false, detail: "113 d 14 h old (limit 1 min 0 s)" });
  });

  it("says a fresh one in seconds, and one from the future as a clock ahead", () => {
    expect(heartbeatItem({ ageMs: 4_200, limitMs: 30_000 })).toMatchObject({ met: true, detail: "4 s old (limit 30 s)" });
    expect(heartbeatItem({ ageMs: -90_000, limitMs: 30_000 })).toMatchObject({ met: false, detail: "1 min 30 s in the future (bot clock ahead?)" });
    // A page with no answer for a while counts the age on by itself: the bot may be beating all along.
    expect(heartbeatItem({ ageMs: 14_000, limitMs: 6_000 }, true)).toMatchObject({
      met: false,
      detail: "unknown while this page is not updating (14 s old by its clock)",
      fix: "This page cannot tell whether the bot still beats, and the bot may be fine: wait until the page updates.",
    });
  });
});
