import { describe, expect, it } from "vitest";
import { clearChecklist, unmet, type ClearFacts, type UnacknowledgedDrift } from "@/lib/breaker/clear-checklist";

const now = new Date("2026-08-10T15:31:00.000Z");
const trippedAt = "2026-08-10T15:20:00.000Z";
/** A halted bot that may be cleared: every item holds. */
const ready: ClearFacts = {
  now,
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
    expect(unmet(items)[0]!.detail).toMatch(/^not acknowledged: ETHUSDT /);
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
});
