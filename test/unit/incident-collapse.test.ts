import { describe, expect, it } from "vitest";
import { collapseTimeline } from "@/lib/incidents/collapse";
import { repeatWords } from "@/lib/incidents/lines";
import { foldTimeline, tallyEvents } from "@/lib/incidents/fold";
import { inJournal, toIncidentEvent, type IncidentEvent, type IncidentRow, type IncidentSeverity } from "@/lib/incidents/events";

/** A journal row as the timeline reads it, before words: every column null but what a test names. */
const incidentRow = (over: Partial<IncidentRow>): IncidentRow => ({
  source: "order",
  rowId: 1,
  at: "2026-11-30T05:31:00.000Z",
  botId: "beta",
  kind: "intent",
  actor: "bot",
  clientOrderId: null,
  symbol: null,
  side: null,
  qty: null,
  strategy: null,
  detail: null,
  reason: null,
  reconciliationId: null,
  ordersInFlight: null,
  target: null,
  outcome: null,
  ...over,
});

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
    expect(c.rows.map(repeatWords)).toEqual(["×117", ""]);
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

  it("lists an order's settlement after its timeout: the lookup is a line of its own, not a routine count", () => {
    const order = (rowId: number, kind: string, detail: string) =>
      incidentRow({ rowId, at: `2026-11-30T05:31:0${rowId}.000Z`, kind, clientOrderId: "b-7", symbol: "NVDA", side: "buy", qty: 2, strategy: "trend", detail });
    const c = collapseTimeline(
      [
        order(1, "intent", "{}"),
        order(2, "timeout", '{"attempt":1,"error":"timed out after 5 s"}'),
        order(3, "lookup_found", '{"status":"filled","filledQty":2,"avgPrice":181.2}'),
      ].map((r) => toIncidentEvent(r)),
    );
    expect(c.rows.map((r) => r.event.summary)).toEqual([
      "no reply to buy 2 NVDA (attempt 1): timed out after 5 s",
      "lookup found buy 2 NVDA on the exchange: filled, 2 filled at 181.2",
    ]);
    expect(c.routine).toEqual([{ words: "order intent", n: 1 }]);
  });

  it("lists how a retried order ended: its send after a timeout and an absent lookup is a row, where another order's send is routine", () => {
    const order = (rowId: number, kind: string, detail: string, clientOrderId = "b-7") =>
      incidentRow({ rowId, at: `2026-11-30T05:31:0${rowId}.000Z`, kind, clientOrderId, symbol: "SOLUSDT", side: "sell", qty: 97.9, strategy: "trend", detail });
    const c = collapseTimeline(
      [
        order(1, "timeout", '{"attempt":1,"error":"timed out"}'),
        order(2, "lookup_absent", '{"during":"retry"}'),
        order(3, "send", '{"status":"filled","filledQty":97.9,"avgPrice":150}'),
        order(4, "send", '{"status":"filled","filledQty":97.9,"avgPrice":150}', "b-8"),
      ].map((r) => toIncidentEvent(r)),
    );
    expect(c.rows.map((r) => r.event.summary)).toEqual([
      "no reply to sell 97.9 SOLUSDT (attempt 1): timed out",
      "lookup found no sell 97.9 SOLUSDT on the exchange (during retry): it may be sent again under the same id",
      "sell 97.9 SOLUSDT sent; the exchange says filled, 97.9 filled at 150",
    ]);
    expect(c.routine).toEqual([{ words: "order sent", n: 1 }]);
  });

  it("counts every cycle that saw a drift on its line: a drift that went A, B, A over six cycles is ×5 and ×1, not ×2", () => {
    const A = [{ symbol: "ETHUSDT", ours: 1, theirs: 2, qtyStep: 0.01, drift: "size_drift" as const }];
    const B = [{ symbol: "ETHUSDT", ours: 1, theirs: 3, qtyStep: 0.01, drift: "size_drift" as const }];
    const cycle = (rowId: number, drifts: typeof A): IncidentEvent =>
      toIncidentEvent(incidentRow({ source: "reconciliation", rowId, at: `2026-11-30T05:3${rowId}:00.000Z`, kind: "drift", reconciliationId: rowId }), drifts);
    const c = collapseTimeline([cycle(1, A), cycle(2, A), cycle(3, A), cycle(4, B), cycle(5, A), cycle(6, A)]);
    expect(c.rows.map((r) => [r.event.summary, r.count, r.firstAt, r.lastAt])).toEqual([
      ["DRIFT on 1 symbol: ETHUSDT ours +1 / theirs +2 (size drift)", 5, "2026-11-30T05:31:00.000Z", "2026-11-30T05:36:00.000Z"],
      ["DRIFT on 1 symbol: ETHUSDT ours +1 / theirs +3 (size drift)", 1, "2026-11-30T05:34:00.000Z", "2026-11-30T05:34:00.000Z"],
    ]);
    expect(c.routineTotal).toBe(0);
    // Said with what it counts, beside a repeat of events.
    expect(c.rows.map(repeatWords)).toEqual(["×5 cycles", ""]);
  });
});

describe("one console action, written as a breaker event and its audit entry", () => {
  const AT = "2026-11-30T05:31:00.000Z";
  const row = (over: Partial<IncidentRow>): IncidentRow =>
    incidentRow({ source: "breaker", at: AT, kind: "trip", actor: "operator:ana", reason: "halted by hand: venue maintenance", ...over });
  const trip = toIncidentEvent(row({ rowId: 5 }));
  const auditRow = (over: Partial<IncidentRow> = {}) =>
    toIncidentEvent(row({ source: "audit", rowId: 9, kind: "halt_bot", reason: null, target: "beta", outcome: "applied", detail: "{}", ...over }));

  it("is one line: the breaker event, its audit entry told on it, before or after it in the list", () => {
    const halt = auditRow();
    for (const events of [
      [trip, halt],
      [halt, trip],
    ]) {
      const c = collapseTimeline(events);
      expect(c.rows.map((r) => [r.event.id, r.count, r.audit.map((a) => a.summary)])).toEqual([["breaker-5", 1, ["operator:ana: Halt now on beta: applied"]]]);
      expect(c.routineTotal).toBe(0);
    }
    // The clear and an approved clear (two-person rule) likewise; a reader who may not see names reads roles on both.
    const clear = toIncidentEvent(row({ rowId: 6, kind: "clear", actor: "operator", reason: "maintenance over" }));
    for (const action of ["clear_halt", "approve_clear_halt"]) {
      const c = collapseTimeline([clear, auditRow({ kind: action, actor: "operator" })]);
      expect(c.rows.map((r) => [r.event.id, r.audit.map((a) => a.kind)])).toEqual([["breaker-6", [action]]]);
    }
  });

  it("keeps apart what is not one action: a refused halt, a halt written without the console, another person, bot or journal", () => {
    const apart = (...events: IncidentEvent[]) => collapseTimeline(events).rows.map((r) => [r.event.id, r.audit.length]);
    expect(apart(trip, auditRow({ outcome: "refused", reason: "conflict" }))).toEqual([
      ["breaker-5", 0],
      ["audit-9", 0],
    ]);
    expect(apart(trip)).toEqual([["breaker-5", 0]]);
    expect(apart(trip, auditRow({ actor: "operator:ben" }))).toEqual([
      ["breaker-5", 0],
      ["audit-9", 0],
    ]);
    expect(apart(trip, auditRow({ botId: "alpha", target: "alpha" }))).toEqual([
      ["breaker-5", 0],
      ["audit-9", 0],
    ]);
    expect(apart(trip, auditRow({ at: "2026-11-30T05:31:00.001Z" }))).toEqual([
      ["breaker-5", 0],
      ["audit-9", 0],
    ]);
    // A clear's audit entry is not a trip's.
    expect(apart(trip, auditRow({ kind: "clear_halt" }))).toEqual([
      ["breaker-5", 0],
      ["audit-9", 0],
    ]);
    expect(apart(inJournal(trip, "desk-a"), inJournal(auditRow(), "desk-b"))).toEqual([
      ["desk-a/breaker-5", 0],
      ["desk-b/audit-9", 0],
    ]);
  });

  it("is one operator action in the window's tallies and one row of its minute, as in the story", () => {
    const halt = auditRow();
    const refused = auditRow({ rowId: 10, outcome: "refused", reason: "conflict" });
    expect(tallyEvents([trip, halt]).operatorActions).toBe(1);
    // A refused attempt is an action of its own, and a halt written without the console is one.
    expect(tallyEvents([trip, halt, refused]).operatorActions).toBe(2);
    expect(tallyEvents([trip]).operatorActions).toBe(1);
    expect(tallyEvents([trip, auditRow({ actor: "operator:ben" })]).operatorActions).toBe(2);

    const [minute] = foldTimeline([trip, halt, refused]);
    expect(minute!.total).toBe(3);
    expect(minute!.lines.map((l) => [l.event.id, l.audit.map((a) => a.id)])).toEqual([
      ["breaker-5", ["audit-9"]],
      ["audit-10", []],
    ]);
  });

  it("an order resolved by hand is one action too: the order's event, its audit entry told on it", () => {
    const resolved = toIncidentEvent(
      row({
        source: "order",
        rowId: 20,
        kind: "operator",
        botId: "beta",
        clientOrderId: "b-7",
        symbol: "ETHUSDT",
        side: "buy",
        qty: 2,
        strategy: "trend",
        reason: null,
        detail: JSON.stringify({ action: "resolve_manual", status: "filled", avgPrice: 3010, note: "venue screen" }),
      }),
    );
    const entry = auditRow({ rowId: 21, kind: "resolve_order_manual", target: "b-7" });
    expect(tallyEvents([resolved, entry]).operatorActions).toBe(1);
    const [minute] = foldTimeline([resolved, entry]);
    expect(minute!.lines.map((l) => [l.event.id, l.audit.map((a) => a.id)])).toEqual([["order-20", ["audit-21"]]]);
    // Another order's entry, or one at another moment, is an action of its own.
    expect(tallyEvents([resolved, auditRow({ rowId: 22, kind: "resolve_order_manual", target: "b-8" })]).operatorActions).toBe(2);
    expect(tallyEvents([resolved, auditRow({ rowId: 23, kind: "resolve_order_manual", target: "b-7", at: "2026-11-30T05:31:01.000Z" })]).operatorActions).toBe(
      2,
    );
  });
});
