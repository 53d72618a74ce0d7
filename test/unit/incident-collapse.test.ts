import { describe, expect, it } from "vitest";
import { collapseTimeline } from "@/lib/incidents/collapse";
import type { IncidentEvent, IncidentSeverity } from "@/lib/incidents/events";

let n = 0;
function event(kind: string, severity: IncidentSeverity, summary: string, source: IncidentEvent["source"] = "order"): IncidentEvent {
  n += 1;
  return {
    id: `${source}-${n}`,
    at: new Date(Date.UTC(2026, 10, 30, 5, 0, n)).toISOString(),
    source,
    kind,
    botId: "beta",
    actor: "bot",
    operator: false,
    severity,
    summary,
    symbol: "NVDA",
    side: "buy",
    qty: 2,
    strategy: "trend",
    clientOrderId: "b-1",
    reconciliationId: null,
    reason: null,
    target: null,
    outcome: null,
    drifts: [],
    detail: null,
  };
}

describe("collapsing an incident's timeline", () => {
  it("shows 117 identical failed lookups as one row with the count and the first and last time", () => {
    const fails = Array.from({ length: 117 }, () => event("error", "warning", "error on buy 2 NVDA during lookup: lookup failed"));
    const trip = event("trip", "emergency", "BREAKER TRIPPED by bot: order b-1 unknown", "breaker");
    const c = collapseTimeline([fails[0]!, trip, ...fails.slice(1)]);
    expect(c.rows.map((r) => [r.event.summary, r.count])).toEqual([
      ["error on buy 2 NVDA during lookup: lookup failed", 117],
      ["BREAKER TRIPPED by bot: order b-1 unknown", 1],
    ]);
    expect(c.rows[0]).toMatchObject({ firstAt: fails[0]!.at, lastAt: fails[116]!.at });
  });

  it("reads timeouts that differ only in their attempt number as the same line", () => {
    const c = collapseTimeline([
      event("timeout", "warning", "no reply to buy 2 NVDA (attempt 1): timed out"),
      event("timeout", "warning", "no reply to buy 2 NVDA (attempt 2): timed out"),
    ]);
    expect(c.rows).toHaveLength(1);
    expect(c.rows[0]!.count).toBe(2);
  });

  it("never counts routine events as notable: they are counted apart by kind", () => {
    const c = collapseTimeline([
      event("clean", "info", "reconciled: the books agree", "reconciliation"),
      event("clean", "info", "reconciled: the books agree", "reconciliation"),
      event("intent", "info", "intent written: buy 2 NVDA"),
    ]);
    expect(c.rows).toEqual([]);
    expect(c.routineTotal).toBe(3);
    expect(c.routine).toEqual([
      { words: "clean reconciliations", n: 2 },
      { words: "order intent", n: 1 },
    ]);
  });
});
