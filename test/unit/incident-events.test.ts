import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { actorRole, withoutNames } from "@/lib/auth/actor-names";
import { rowMayName, toIncidentEvent, type IncidentRow } from "@/lib/incidents/events";
import { actionLabel } from "@/lib/text/audit-detail";

const row = (r: Partial<IncidentRow>): IncidentRow => ({
  source: "order",
  rowId: 1,
  at: "2026-08-10T15:30:00.000Z",
  botId: "bot-a",
  kind: "intent",
  actor: "bot",
  clientOrderId: "q500-x",
  symbol: "AAPL",
  side: "buy",
  qty: 500,
  strategy: "trend",
  detail: "{}",
  reason: null,
  reconciliationId: null,
  ordersInFlight: null,
  target: null,
  outcome: null,
  ...r,
});

describe("toIncidentEvent", () => {
  it("keeps a detail that is not JSON as its text, rather than failing the whole timeline", () => {
    expect(toIncidentEvent(row({ kind: "error", detail: "boom, not json" }))).toMatchObject({ detail: "boom, not json", severity: "warning" });
  });

  it("keeps the bot's close of a position it never opened notable: it is what put the symbol back in sync", () => {
    const close = toIncidentEvent(row({ kind: "send", strategy: "reconcile", side: "buy", qty: 26.12, symbol: "BNBUSDT", detail: '{"status":"filled"}' }));
    expect(close).toMatchObject({ summary: "the reduce-only close (buy 26.12 BNBUSDT) sent; the exchange says filled", severity: "notice" });
    expect(toIncidentEvent(row({ kind: "send", detail: '{"status":"filled"}' })).severity).toBe("info");
  });

  it("keeps the bot's lookups notable: each settles an order in doubt, the line a reviewer looks for after its timeout", () => {
    expect(toIncidentEvent(row({ kind: "lookup_found", detail: '{"status":"filled","filledQty":500,"avgPrice":190.5}' }))).toMatchObject({
      summary: "lookup found buy 500 AAPL on the exchange: filled, 500 filled at 190.5",
      severity: "notice",
    });
    expect(toIncidentEvent(row({ kind: "lookup_absent", detail: '{"during":"send"}' }))).toMatchObject({
      summary: "lookup found no buy 500 AAPL on the exchange (during send): it may be sent again under the same id",
      severity: "notice",
    });
  });

  it("names an event whose order is missing from the orders table by its id", () => {
    const e = toIncidentEvent(row({ kind: "send", symbol: null, side: null, qty: null, botId: null, detail: '{"status":"filled"}' }));
    expect(e.summary).toBe("order q500-x (not in the orders table) sent; the exchange says filled");
  });

  it("says what an operator settled an order as, with its price, and what their check on the exchange found", () => {
    const op = (kind: string, detail: unknown) =>
      toIncidentEvent(row({ kind, actor: "operator:ana", side: "buy", qty: 0.497, symbol: "BTCUSDT", detail: JSON.stringify(detail) }));
    expect(op("operator", { resolvedBy: "hand", status: "filled", filledQty: 0.497, avgPrice: 64210.5, note: "seen on the venue" })).toMatchObject({
      summary: "operator:ana resolved buy 0.497 BTCUSDT by hand as filled, 0.497 filled at 64,210.5: seen on the venue",
      severity: "notice",
    });
    expect(op("operator", { resolvedBy: "hand", status: "filled", filledQty: 0.497, avgPrice: 6421, priceConfirmed: true, note: "odd fill" }).summary).toBe(
      "operator:ana resolved buy 0.497 BTCUSDT by hand as filled, 0.497 filled at 6,421 (price confirmed, though far from the last mark): odd fill",
    );
    expect(op("operator", { resolvedBy: "hand", status: "cancelled", filledQty: 0, avgPrice: null, note: "never filled" }).summary).toBe(
      "operator:ana resolved buy 0.497 BTCUSDT by hand as cancelled: never filled",
    );
    expect(op("lookup_found", { status: "filled", filledQty: 0.497, avgPrice: 64210.5 }).summary).toBe(
      "operator:ana checked buy 0.497 BTCUSDT on the exchange: filled, 0.497 filled at 64,210.5",
    );
    expect(op("lookup_absent", { during: "operator check" }).summary).toBe("operator:ana checked buy 0.497 BTCUSDT on the exchange: it never got it");
  });

  it("reads a skipped cycle, a failed one and a drift with no recorded symbol plainly", () => {
    const rec = (kind: string, extra: Partial<IncidentRow> = {}) => toIncidentEvent(row({ source: "reconciliation", kind, actor: "bot", ...extra }));
    expect(rec("skipped", { ordersInFlight: 2 }).summary).toBe("reconciliation skipped: 2 orders in flight");
    expect(rec("error", { reason: "fetch positions failed: 502" })).toMatchObject({
      summary: "reconciliation failed: fetch positions failed: 502",
      severity: "warning",
    });
    expect(rec("drift")).toMatchObject({ summary: "DRIFT on 0 symbols: no drifting symbol recorded", severity: "warning" });
  });

  it("tells a size drift from an unknown position", () => {
    const e = toIncidentEvent(row({ source: "reconciliation", kind: "drift", rowId: 9, reconciliationId: 9 }), [
      { symbol: "AAPL", ours: 500, theirs: 300, qtyStep: 1, drift: "size_drift" },
    ]);
    expect(e).toMatchObject({ severity: "warning", summary: "DRIFT on 1 symbol: AAPL ours +500 / theirs +300 (size drift)" });
  });

  it("words an audited action by its actor, action, target and outcome; a refusal is a warning", () => {
    const audit = (r: Partial<IncidentRow>) =>
      toIncidentEvent(row({ source: "audit", actor: "operator:ana", kind: "clear_halt", target: "bot-a", detail: '{"reason":"ok"}', ...r }));
    expect(audit({ outcome: "applied" })).toMatchObject({
      summary: "operator:ana: Clear a halt on bot-a: applied",
      severity: "notice",
      operator: true,
      detail: { reason: "ok" },
    });
    expect(audit({ outcome: "refused", reason: "conflict", actor: "anonymous" })).toMatchObject({
      summary: "anonymous: Clear a halt on bot-a: refused (conflict)",
      severity: "warning",
      operator: true,
    });
    // A refusal says why, in the words the operator was shown, so a story or a post-mortem needs no audit page.
    expect(
      audit({
        outcome: "refused",
        reason: "conflict",
        detail: JSON.stringify({ message: "bot-a changed since you loaded the page: reload and look again.", reasons: [] }),
      }).summary,
    ).toBe("operator:ana: Clear a halt on bot-a: refused (conflict): bot-a changed since you loaded the page: reload and look again.");
    // A form refused as a whole says what each field needed, not only "Some fields need fixing".
    expect(
      audit({
        outcome: "refused",
        reason: "invalid",
        detail: JSON.stringify({
          message: "Some fields need fixing. Nothing was changed.",
          fieldErrors: { confirmBotId: ["Type the bot id exactly to confirm"] },
        }),
      }).summary,
    ).toBe(
      "operator:ana: Clear a halt on bot-a: refused (invalid): Some fields need fixing. Nothing was changed. What to fix: Type the bot id exactly to confirm.",
    );
  });

  it("names an audited action as the audit page does, and keeps its raw name as the kind the exports carry", () => {
    const e = toIncidentEvent(
      row({ source: "audit", actor: "operator:demo", kind: "resolve_order_manual", target: "alpha-33e2", outcome: "refused", reason: "invalid", detail: "{}" }),
    );
    expect(e.summary).toBe(`operator:demo: ${actionLabel("resolve_order_manual")} on alpha-33e2: refused (invalid)`);
    expect(e.summary).toBe("operator:demo: Resolve a doubtful order by hand on alpha-33e2: refused (invalid)");
    expect(e.kind).toBe("resolve_order_manual");
    // A refusal whose code is "refused" says it once.
    expect(
      toIncidentEvent(
        row({ source: "audit", actor: "operator:demo", kind: "clear_halt", target: "alpha", outcome: "refused", reason: "refused", detail: "{}" }),
      ).summary,
    ).toBe("operator:demo: Clear a halt on alpha: refused");
    // An action this console does not know still reads as words.
    expect(toIncidentEvent(row({ source: "audit", kind: "future_thing", target: "x", outcome: "applied", detail: "{}" })).summary).toMatch(
      /: future thing on x: applied$/,
    );
  });

  it("flags operators by the actor prefix alone", () => {
    expect(toIncidentEvent(row({ source: "breaker", kind: "clear", actor: "operator:ana", reason: "ok" }))).toMatchObject({
      operator: true,
      summary: "breaker cleared by operator:ana: ok",
    });
    expect(toIncidentEvent(row({ actor: "bot" })).operator).toBe(false);
  });
});

describe("rowMayName: which events are searched for names before a reader who is not signed in sees them", () => {
  // Texts built from the pieces a name, a role, a JSON escape or a colon is made of, so that the
  // property meets every near-miss: "operator:", "viewer :", "operator\u003aana", "operator: x".
  const piece = fc.constantFrom("operator", "viewer", ":", ": ", "ana", ".b", "\\u003a", "\\", '"', " ", "{", "}", "bot", "x");
  const text = fc.array(piece, { maxLength: 6 }).map((p) => p.join(""));
  const maybe = fc.option(text, { nil: null });
  const detail = fc.oneof(
    maybe,
    fc.dictionary(fc.constantFrom("status", "error", "note", "action", "reason", "why", "during"), text).map((d) => JSON.stringify(d)),
  );
  const arbRow: fc.Arbitrary<IncidentRow> = fc.record({
    source: fc.constantFrom("order", "reconciliation", "breaker", "audit"),
    rowId: fc.nat(),
    at: fc.constant("2026-08-10T15:30:00.000Z"),
    botId: maybe,
    kind: fc.oneof(fc.constantFrom("intent", "send", "timeout", "lookup_found", "lookup_absent", "status", "error", "drift", "trip", "clear", "clean"), text),
    actor: fc.oneof(fc.constantFrom("bot", "operator", "operator:ana", "viewer:bo"), text),
    clientOrderId: maybe,
    symbol: maybe,
    side: maybe,
    qty: fc.option(fc.double({ noNaN: true }), { nil: null }),
    strategy: fc.oneof(fc.constant("reconcile"), maybe),
    detail,
    reason: maybe,
    reconciliationId: fc.option(fc.nat(), { nil: null }),
    ordersInFlight: fc.option(fc.nat(), { nil: null }),
    target: maybe,
    outcome: fc.oneof(fc.constantFrom("applied", "refused"), maybe),
  });
  const drifts = fc.array(
    fc.record({
      symbol: text,
      ours: fc.double({ noNaN: true }),
      theirs: fc.double({ noNaN: true }),
      qtyStep: fc.constant(1),
      drift: fc.constantFrom("size_drift" as const, "unknown_position" as const),
    }),
    { maxLength: 2 },
  );

  it("is true of every row whose event, its actor shown as a role, withoutNames would change", () => {
    fc.assert(
      fc.property(arbRow, drifts, (r, d) => {
        const event = toIncidentEvent({ ...r, actor: actorRole(r.actor) }, d);
        // withoutNames returns the very object it was given when no string in it names anyone.
        if (!rowMayName(r, d)) expect(withoutNames(event)).toBe(event);
      }),
      { numRuns: 3000 },
    );
  });

  it("looks at the actor as the journal wrote it, and at a detail's escapes", () => {
    expect(rowMayName(row({ actor: "operator" }), [], "operator:ana")).toBe(true);
    expect(rowMayName(row({ detail: '{"note":"operator\\u003aana"}' }), [])).toBe(true);
    expect(rowMayName(row({}), [{ symbol: "viewer:bo", ours: 1, theirs: 0, qtyStep: 1, drift: "size_drift" }])).toBe(true);
    expect(rowMayName(row({ reason: "halted by an operator, see the note" }), [])).toBe(false);
  });
});
