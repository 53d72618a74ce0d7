/**
 * An incident told from fixed journal facts: its cause, the order behind it, who did what with
 * which note, and the three durations, for a drift the bot tripped on, a lost order, and a halt
 * made by hand; the list's durations and the weekly counts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collapseTimeline, gapWords } from "@/lib/incidents/collapse";
import { incidentPostmortem, postmortemFilename } from "@/lib/incidents/postmortem";
import { durationPieces } from "@/lib/text/wrap";
import {
  incidentsPerWeek,
  listItem,
  median,
  orderIdsInReason,
  storyChartSpan,
  tellIncident,
  weekStart,
  wholeIncidentSpan,
  type IncidentFacts,
} from "@/lib/incidents/story";

const T0 = "2026-08-10T15:00:00.000Z";
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

function facts(over: Partial<IncidentFacts> = {}): IncidentFacts {
  return {
    trip: { id: 7, botId: "alpha", at: T0, reason: "unknown position SOLUSDT +98", actor: "bot", reconciliationId: 41 },
    clear: null,
    drifts: [
      { symbol: "ETHUSDT", ours: 1, theirs: 2, qtyStep: 0.01, drift: "size_drift" },
      { symbol: "SOLUSDT", ours: 0, theirs: 98, qtyStep: 0.01, drift: "unknown_position" },
    ],
    orders: [],
    audit: [],
    corrections: [],
    ...over,
  };
}

const audit = (id: number, seconds: number, action: string, target: string, detail: Record<string, unknown>, outcome = "applied") => ({
  id,
  at: at(seconds),
  actor: "operator:ana",
  action,
  target,
  outcome,
  detail: JSON.stringify({ ...detail, input: {} }),
});

describe("telling an incident", () => {
  it("names the drifting line the trip's reason names, and an open incident has no clear time", () => {
    const s = tellIncident(facts());
    expect(s.status).toBe("open");
    expect(s.cause.drift).toMatchObject({ symbol: "SOLUSDT", ours: 0, theirs: 98 });
    expect(s.symbol).toBe("SOLUSDT");
    expect(s.durations).toEqual({ toFirstActionMs: null, toSettleMs: null, toClearMs: null });
    expect(s.steps).toEqual([]);
  });

  it("finds the doubtful order on the drift's symbol and times the first action, the settle and the clear from the trip", () => {
    const s = tellIncident(
      facts({
        clear: { id: 9, at: at(300), reason: "books agree again", actor: "operator:ben" },
        orders: [
          {
            clientOrderId: "a1-00000000000000000001",
            symbol: "SOLUSDT",
            side: "buy",
            qty: 98,
            state: "filled",
            events: [
              { id: 1, at: at(-20), kind: "intent", actor: "bot", detail: "{}" },
              { id: 2, at: at(-19), kind: "timeout", actor: "bot", detail: '{"attempt":1}' },
              { id: 3, at: at(-5), kind: "status", actor: "bot", detail: '{"status":"unknown"}' },
              { id: 4, at: at(60), kind: "error", actor: "bot", detail: '{"during":"lookup"}' },
              { id: 5, at: at(150), kind: "operator", actor: "operator:ana", detail: '{"status":"filled","note":"saw it on the venue"}' },
            ],
          },
          // Settled long before the trip: not behind it.
          {
            clientOrderId: "a1-00000000000000000000",
            symbol: "SOLUSDT",
            side: "sell",
            qty: 1,
            state: "filled",
            events: [
              { id: 0, at: at(-200), kind: "timeout", actor: "bot", detail: "{}" },
              { id: 0, at: at(-190), kind: "lookup_found", actor: "bot", detail: '{"status":"filled"}' },
            ],
          },
        ],
        audit: [
          audit(20, 45, "acknowledge_drift", "alpha/SOLUSDT", { note: "looking at the venue now" }),
          audit(21, 100, "clear_halt", "alpha", { reason: "too early" }, "refused"),
          audit(22, 150, "resolve_order_manual", "a1-00000000000000000001", { status: "filled", note: "saw it on the venue" }),
        ],
      }),
    );
    expect(s.status).toBe("cleared");
    expect(s.order).toMatchObject({
      clientOrderId: "a1-00000000000000000001",
      doubtfulAt: at(-19),
      settledAt: at(150),
      settledBy: "operator:ana",
      settledAs: "filled",
    });
    expect(s.durations).toEqual({ toFirstActionMs: 45_000, toSettleMs: 150_000, toClearMs: 300_000 });
    expect(s.firstAction).toEqual({ at: at(45), actor: "operator:ana", what: "acknowledged the drift on SOLUSDT" });
    // The refusal changed nothing; the operator's order event is the audited resolution, told once; the clear without the console from its breaker event.
    expect(s.steps.map((x) => [x.what, x.note])).toEqual([
      ["acknowledged the drift on SOLUSDT", "looking at the venue now"],
      ["resolved order a1-00000000000000000001 by hand as filled", "saw it on the venue"],
      ["cleared the halt", "books agree again"],
    ]);
    expect(s.steps.map((x) => x.mark)).toEqual(["acknowledge", "resolve", "clear"]);
  });

  it("does not take a lookup that found the order absent for its settlement when the bot sent it again", () => {
    const id = "a1-00000000000000000002";
    const s = tellIncident(
      facts({
        trip: { id: 7, botId: "alpha", at: at(0), reason: `order ${id} unknown`, actor: "bot", reconciliationId: null },
        drifts: [],
        orders: [
          {
            clientOrderId: id,
            symbol: "SOLUSDT",
            side: "sell",
            qty: 98,
            state: "filled",
            events: [
              { id: 1, at: at(-30), kind: "intent", actor: "bot", detail: "{}" },
              { id: 2, at: at(-29), kind: "timeout", actor: "bot", detail: '{"attempt":1}' },
              { id: 3, at: at(-20), kind: "lookup_absent", actor: "bot", detail: '{"during":"retry"}' },
              { id: 4, at: at(-19), kind: "send", actor: "bot", detail: "{}" },
              { id: 5, at: at(-10), kind: "timeout", actor: "bot", detail: '{"attempt":2}' },
              { id: 6, at: at(-1), kind: "status", actor: "bot", detail: '{"status":"unknown"}' },
              { id: 7, at: at(3), kind: "lookup_found", actor: "bot", detail: '{"status":"filled","filledQty":98,"avgPrice":152.9}' },
            ],
          },
        ],
      }),
    );
    expect(s.order).toMatchObject({ clientOrderId: id, doubtfulAt: at(-29), settledAt: at(3), settledBy: "bot", settledAs: "filled", settledPrice: 152.9 });
    expect(s.durations.toSettleMs).toBe(3_000);
  });

  it("finds the order a lost-order trip names, with no reconciliation behind it", () => {
    const id = "b700-0123456789abcdef0123";
    expect(orderIdsInReason(`order ${id} unknown: lookup failed`)).toEqual([id]);
    expect(orderIdsInReason(`2 order(s) unknown after startup recovery: ${id}, a1-77`)).toEqual([id, "a1-77"]);
    expect(orderIdsInReason("unknown position ETHUSDT +3")).toEqual([]);
    const s = tellIncident(
      facts({
        trip: { id: 3, botId: "beta", at: T0, reason: `order ${id} unknown: lookup failed`, actor: "bot", reconciliationId: null },
        drifts: [],
        orders: [
          {
            clientOrderId: id,
            symbol: "ETHUSDT",
            side: "buy",
            qty: 2,
            state: "unknown",
            events: [{ id: 1, at: at(-3), kind: "timeout", actor: "bot", detail: "{}" }],
          },
        ],
      }),
    );
    expect(s.cause.drift).toBeNull();
    expect(s.symbol).toBe("ETHUSDT");
    expect(s.order).toMatchObject({ clientOrderId: id, settledAt: null, state: "unknown" });
    expect(s.durations.toSettleMs).toBeNull();
  });

  it("tells a hand-made halt as the operator's, and the halt is their first action, listed under who did what", () => {
    const s = tellIncident(
      facts({
        trip: { id: 11, botId: "alpha", at: T0, reason: "halted by hand: venue maintenance at 15:00", actor: "operator:ana", reconciliationId: null },
        drifts: [],
        clear: { id: 12, at: at(600), reason: "maintenance over", actor: "operator:ben" },
        audit: [
          audit(30, 0, "halt_bot", "alpha", { reason: "venue maintenance at 15:00", breakerVersion: 3 }),
          audit(31, 590, "correct_book", "alpha/AAPL", { kind: "adopt_exchange", delta: -40 }),
          { ...audit(32, 600, "clear_halt", "alpha", { reason: "maintenance over" }), actor: "operator:ben" },
        ],
        corrections: [
          { id: 1, at: at(590), actor: "operator:ana", symbol: "AAPL", kind: "adopt_exchange", ours: 100, theirs: 60, delta: -40, note: "40 closed by hand" },
        ],
      }),
    );
    expect(s.cause).toMatchObject({ byHand: true, haltedBy: "operator:ana", drift: null, reason: "venue maintenance at 15:00" });
    expect(s.symbol).toBeNull();
    expect(s.firstAction).toEqual({ at: T0, actor: "operator:ana", what: "halted alpha by hand" });
    expect(s.durations).toEqual({ toFirstActionMs: 0, toSettleMs: null, toClearMs: 600_000 });
    expect(s.steps.map((x) => [x.actor, x.what, x.note])).toEqual([
      ["operator:ana", "halted alpha by hand", "venue maintenance at 15:00"],
      ["operator:ana", "corrected the book of AAPL to the exchange's size: from +100 to +60 (by -40)", "40 closed by hand"],
      ["operator:ben", "cleared the halt", "maintenance over"],
    ]);
    expect(s.steps.map((x) => x.mark)).toEqual(["halt", "correction", "clear"]);
  });

  it("tells a hand-made halt written without the console (no audit entry) from its trip, as the first action, and the post-mortem says the same", () => {
    const s = tellIncident(
      facts({
        trip: { id: 11, botId: "alpha", at: T0, reason: "halted by hand: drill", actor: "operator:ana", reconciliationId: null },
        drifts: [],
        clear: { id: 12, at: at(600), reason: "drill over", actor: "operator:ben" },
      }),
    );
    expect(s.steps.map((x) => [x.id, x.actor, x.what, x.note, x.mark])).toEqual([
      ["breaker-11", "operator:ana", "halted alpha by hand", "drill", "halt"],
      ["breaker-12", "operator:ben", "cleared the halt", "drill over", "clear"],
    ]);
    expect(s.firstAction).toEqual({ at: T0, actor: "operator:ana", what: "halted alpha by hand" });
    expect(s.durations.toFirstActionMs).toBe(0);
    const md = incidentPostmortem({ story: s, timeline: { ...collapseTimeline([]), events: 0, capped: false }, readAt: at(900) });
    expect(md).toContain("- **Time to first operator action:** 0 s (operator:ana halted alpha by hand)");
    expect(md).toContain("1. 15:00:00 UTC: operator:ana halted alpha by hand\n   > drill\n2. 15:10:00 UTC: operator:ben cleared the halt");
    // A refused Halt now (the bot was already halted) is no step and no action.
    const refused = tellIncident(facts({ audit: [audit(40, 5, "halt_bot", "alpha", { reason: "x" }, "refused")] }));
    expect(refused.steps).toEqual([]);
    expect(refused.firstAction).toBeNull();
    // ...but "nobody has acted" beside it in the timeline would be untrue: the summary and the file count it.
    expect(refused.refused).toEqual({ count: 1, firstAt: at(5) });
    const timeline = { ...collapseTimeline([]), events: 0, capped: false };
    expect(incidentPostmortem({ story: refused, timeline, readAt: at(900) })).toContain(
      "## Who did what\n\nNo action applied yet: 1 attempt refused, at 15:00:05 UTC: it changed nothing; the timeline below says why.\n",
    );
    // A stranger's refused post is not an operator's attempt; one before the trip is not this incident's.
    const stranger = { ...audit(41, 6, "clear_halt", "alpha", {}, "refused"), actor: "anonymous" };
    const before = { ...audit(42, -60, "clear_halt", "alpha", {}, "refused") };
    expect(tellIncident(facts({ audit: [stranger, before] })).refused).toEqual({ count: 0, firstAt: null });
    // Beside applied steps: "Also …".
    const both = tellIncident(
      facts({
        audit: [
          audit(43, 30, "clear_halt", "alpha", {}, "refused"),
          audit(44, 20, "clear_halt", "alpha", {}, "refused"),
          audit(45, 60, "acknowledge_drift", "alpha/SOLUSDT", { note: "seen" }),
        ],
      }),
    );
    expect(both.refused).toEqual({ count: 2, firstAt: at(20) });
    expect(incidentPostmortem({ story: both, timeline, readAt: at(900) })).toContain(
      "\n\nAlso 2 attempts refused, the first at 15:00:20 UTC: they changed nothing; the timeline below says why.\n",
    );
  });
});

describe("the price an order settled at", () => {
  it("is told with its settle, on the page's facts and in the post-mortem, so a price typed wrong shows afterwards", () => {
    const order = (detail: string) =>
      tellIncident(
        facts({
          orders: [
            {
              clientOrderId: "a1-00000000000000000001",
              symbol: "SOLUSDT",
              side: "buy",
              qty: 98,
              state: "filled",
              events: [
                { id: 2, at: at(-19), kind: "timeout", actor: "bot", detail: "{}" },
                { id: 5, at: at(150), kind: "operator", actor: "operator:demo", detail },
              ],
            },
          ],
        }),
      );
    const s = order('{"resolvedBy":"hand","status":"filled","filledQty":98,"avgPrice":1530,"note":"venue page"}');
    expect(s.order).toMatchObject({ settledAs: "filled", settledBy: "operator:demo", settledPrice: 1530 });
    const md = incidentPostmortem({ story: s, timeline: { ...collapseTimeline([]), events: 0, capped: false }, readAt: at(900) });
    expect(md).toContain("settled as filled at 1,530 by operator:demo at Aug 10 2026 15:02:30 UTC");
    expect(md).toContain("1. 15:02:30 UTC: operator:demo settled order a1-00000000000000000001 as filled at 1,530");
    // Through the console, the audit entry tells it, from what the action wrote under `after`.
    const audited = tellIncident(
      facts({
        audit: [
          audit(22, 150, "resolve_order_manual", "a1-00000000000000000001", {
            after: { state: "filled", filledQty: 98, avgPrice: 1530 },
            note: "venue page",
          }),
        ],
      }),
    );
    expect(audited.steps.map((x) => x.what)).toEqual(["resolved order a1-00000000000000000001 by hand as filled at 1,530"]);
    // Settled without a price (absent, or none recorded): nothing made up.
    const none = order('{"resolvedBy":"hand","status":"absent","filledQty":0,"avgPrice":null,"note":"not on the venue"}');
    expect(none.order).toMatchObject({ settledAs: "absent", settledPrice: null });
    expect(incidentPostmortem({ story: none, timeline: { ...collapseTimeline([]), events: 0, capped: false }, readAt: at(900) })).toContain(
      "settled as absent by operator:demo at Aug 10 2026 15:02:30 UTC",
    );
  });
});

describe("the list and the weeks", () => {
  it("takes the first action from the audit, or an operator's clear made without the console, whichever came first", () => {
    const base = { id: 1, botId: "a", reason: "r", haltedBy: "bot", startedAt: T0 };
    expect(listItem({ ...base, clearedAt: at(120), clearedBy: "operator:ana", firstAuditAt: null })).toMatchObject({
      status: "cleared",
      toFirstActionMs: 120_000,
      toClearMs: 120_000,
    });
    expect(listItem({ ...base, clearedAt: at(120), clearedBy: "operator:ana", firstAuditAt: at(30) }).toFirstActionMs).toBe(30_000);
    expect(listItem({ ...base, clearedAt: null, clearedBy: null, firstAuditAt: null })).toMatchObject({
      status: "open",
      toFirstActionMs: null,
      toClearMs: null,
    });
  });

  it("counts a halt made by hand as its operator's first action, at the trip, as the story does", () => {
    const base = { id: 1, botId: "a", reason: "halted by hand: drill", startedAt: T0, clearedAt: at(120), clearedBy: "operator:ben", firstAuditAt: at(30) };
    expect(listItem({ ...base, haltedBy: "operator:ana" }).toFirstActionMs).toBe(0);
    // A reader who may not see names gets the role alone.
    expect(listItem({ ...base, haltedBy: "operator" }).toFirstActionMs).toBe(0);
    expect(listItem({ ...base, haltedBy: "bot" }).toFirstActionMs).toBe(30_000);
  });

  it("counts incidents per week from Monday UTC with the median time to clear, empty weeks included", () => {
    expect(weekStart("2026-08-10T15:00:00.000Z")).toBe("2026-08-10T00:00:00.000Z"); // a Monday
    expect(weekStart("2026-08-16T23:59:59.000Z")).toBe("2026-08-10T00:00:00.000Z"); // its Sunday
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNull();
    const item = (startedAt: string, toClearMs: number | null) => ({
      id: 1,
      botId: "a",
      cause: "",
      haltedBy: "bot",
      startedAt,
      status: toClearMs === null ? ("open" as const) : ("cleared" as const),
      toFirstActionMs: null,
      toClearMs,
      cyclesPrunedOn: null,
    });
    expect(
      incidentsPerWeek([item("2026-08-11T00:00:00.000Z", 60_000), item("2026-08-12T00:00:00.000Z", 180_000), item("2026-08-26T00:00:00.000Z", null)]),
    ).toEqual([
      { week: "2026-08-10T00:00:00.000Z", incidents: 2, medianToClearMs: 120_000 },
      { week: "2026-08-17T00:00:00.000Z", incidents: 0, medianToClearMs: null },
      { week: "2026-08-24T00:00:00.000Z", incidents: 1, medianToClearMs: null },
    ]);
  });
});

describe("the post-mortem's times and what a prune took", () => {
  const clear = { id: 8, at: "2026-11-28T15:51:00.000Z", reason: "checked with the venue", actor: "operator:oncall" };
  const story = tellIncident(
    facts({ trip: { ...facts().trip, at: "2026-11-28T15:00:01.500Z", reason: "order alpha-4f979874d69871438130 unknown" }, clear, drifts: [] }),
  );
  const timeline = { ...collapseTimeline([]), events: 0, capped: false };

  it("keeps a long reason whole in the Cause line and cuts it at a word in the heading", () => {
    const failure = "lookup failed: bybit GET https://api.bybit.com/v5/order/realtime?category=linear&orderLinkId=alpha-4f979874d69871438130 timed out";
    const reason = `order alpha-4f979874d69871438130 unknown: send failed: ${failure}; then ${failure}`;
    const long = tellIncident(facts({ trip: { ...facts().trip, at: "2026-11-28T15:00:01.500Z", reason }, clear, drifts: [] }));
    const md = incidentPostmortem({ story: long, timeline, readAt: "2026-12-02T03:00:00.000Z" });
    const heading = md.split("\n")[0]!;
    expect(heading).toMatch(/^# Incident \d+: \S+ halted, order alpha-4f979874d69871438130 unknown: send failed: lookup failed: bybit GET…$/);
    expect(heading.length).toBeLessThan(140);
    expect(md).toContain(`- **Cause:** ${reason.replace(/[_&]/g, (c) => `\\${c}`)}`);
    // A short one is the heading as it is.
    expect(incidentPostmortem({ story, timeline, readAt: "2026-12-02T03:00:00.000Z" }).split("\n")[0]).toMatch(
      /halted, order alpha-4f979874d69871438130 unknown$/,
    );
  });

  it("writes a bot's order id as a code span it cannot end, and invisible characters as markers, never as Markdown or HTML", () => {
    const tricky = "a1-`x` <img src=x onerror=alert(1)> **b**";
    const s = tellIncident(
      facts({
        trip: { ...facts().trip, at: "2026-11-28T15:00:01.500Z", reason: "order a1-1 unknown \u202Edeer &lt;b&gt; ~~x~~" },
        clear,
        drifts: [],
        orders: [
          {
            clientOrderId: "a1-1",
            symbol: "SOL<b>USDT",
            side: "buy",
            qty: 1,
            state: "doubtful",
            events: [{ id: 2, at: "2026-11-28T14:59:59.000Z", kind: "timeout", actor: "bot", detail: "{}" }],
          },
        ],
      }),
    );
    // The trip names the order; the id a bot may write in its place is the tricky one.
    expect(s.order?.clientOrderId).toBe("a1-1");
    const md = incidentPostmortem({ story: { ...s, order: { ...s.order!, clientOrderId: tricky } }, timeline, readAt: "2026-12-02T03:00:00.000Z" });
    expect(md).toContain("- **Order behind it:** ``a1-`x` <img src=x onerror=alert(1)> **b**`` buy 1 SOL\\<b\\>USDT,");
    expect(md).toContain("- **Cause:** order a1-1 unknown ⟨U+202E⟩deer \\&lt;b\\&gt; \\~\\~x\\~\\~");
    expect(md).not.toContain("\u202E");
    // A fence as long as the id's own run of backticks, and padding where the id starts with one.
    const edge = incidentPostmortem({ story: { ...s, order: { ...s.order!, clientOrderId: "``a" } }, timeline, readAt: "2026-12-02T03:00:00.000Z" });
    expect(edge).toContain("- **Order behind it:** ``` ``a ``` buy");
  });

  it("prints each step's time of day whole on a two-digit day", () => {
    const md = incidentPostmortem({ story, timeline, readAt: "2026-12-02T03:00:00.000Z" });
    expect(md).toContain("1. 15:51:00 UTC: operator:oncall");
    expect(md).not.toMatch(/\b\d\d:\d\d:\d UTC/);
  });

  it("says the order and the cycles were pruned, with the dates, instead of none; and none only when nothing was pruned", () => {
    const pruned = { cyclesPrunedOn: "2026-12-02T02:35:06.854Z", order: { before: "2026-11-30T02:35:00.000Z", on: "2026-12-02T02:35:06.854Z", named: null } };
    const md = incidentPostmortem({ story, timeline, readAt: "2026-12-02T03:00:00.000Z", pruned });
    expect(md).toContain(
      "- **Order behind it:** not in the journal: settled orders last updated before Nov 30 2026 02:35:00 UTC were pruned on Dec 2 2026 02:35:06 UTC, it may have been one",
    );
    expect(md).toContain("- **Time to settle the doubtful order:** unknown: orders of that time were pruned on Dec 2 2026");
    expect(md).toContain("The reconciliation cycles of this window were pruned on Dec 2 2026 02:35:06 UTC");
    expect(md).not.toContain("none found");
    const named = { ...pruned, order: { ...pruned.order, named: "alpha-4f979874d69871438130" } };
    expect(incidentPostmortem({ story, timeline, readAt: "2026-12-02T03:00:00.000Z", pruned: named })).toContain(
      "- **Order behind it:** alpha-4f979874d69871438130, named by the trip: pruned on Dec 2 2026 02:35:06 UTC (settled orders",
    );
    const kept = incidentPostmortem({ story, timeline, readAt: "2026-12-02T03:00:00.000Z", pruned: { cyclesPrunedOn: null, order: null } });
    expect(kept).toContain("- **Order behind it:** none found");
    expect(kept).not.toContain("pruned");
  });

  it("a gap between two minutes in a pruned span says its cycles were pruned, and when; elsewhere nothing recorded", () => {
    const t = Date.parse("2026-11-28T15:01:00.000Z");
    const pruned = { spans: [{ from: t - 3_600_000, to: t + 3_600_000 }], prunedOn: "2026-12-02T02:35:06.854Z" };
    expect(gapWords({ from: t, to: t + 50 * 60_000 }, pruned)).toBe("50 minutes: reconciliation cycles pruned on Dec 2 2026 02:35:06 UTC");
    expect(gapWords({ from: t + 2 * 3_600_000, to: t + 2 * 3_600_000 + 60_000 }, pruned)).toBe("1 minute with nothing recorded");
    expect(gapWords({ from: t, to: t + 50 * 60_000 }, null)).toBe("50 minutes with nothing recorded");
  });
});

describe("the chart's span", () => {
  const trip = "2026-08-10T15:31:20.000Z";
  const window = (to: string) => ({ from: "2026-08-10T15:29:00.000Z", to });

  it("links the whole of an open incident up to now, not into the window's margin, and at most 366 days", () => {
    const w = window("2026-08-10T18:05:00.000Z");
    expect(wholeIncidentSpan(w, "2026-08-10T18:02:10.000Z")).toEqual({ from: w.from, to: "2026-08-10T18:02:10.000Z", capped: false });
    // Cleared: its window as it is.
    expect(wholeIncidentSpan(w, null)).toEqual({ from: w.from, to: w.to, capped: false });
    const long = wholeIncidentSpan(window("2027-09-01T00:00:00.000Z"), "2027-08-31T23:58:00.000Z");
    expect(long).toEqual({ from: "2026-08-10T15:29:00.000Z", to: "2027-08-11T15:29:00.000Z", capped: true });
  });

  it("charts a short incident whole, as its story's window", () => {
    expect(storyChartSpan({ window: window("2026-08-10T15:36:00.000Z"), tripAt: trip })).toEqual({
      from: "2026-08-10T15:29:00.000Z",
      to: "2026-08-10T15:36:00.000Z",
      whole: true,
    });
    expect(storyChartSpan({ window: window("2026-08-10T17:29:00.000Z"), tripAt: trip }).whole).toBe(true);
  });

  it("charts an incident open for months around its trip: 10 min before it to 50 min after, not a sliver of the whole", () => {
    expect(storyChartSpan({ window: window("2026-12-03T11:20:00.000Z"), tripAt: trip })).toEqual({
      from: "2026-08-10T15:21:00.000Z",
      to: "2026-08-10T16:22:00.000Z",
      whole: false,
    });
    // Just past two hours is long too.
    expect(storyChartSpan({ window: window("2026-08-10T17:30:00.000Z"), tripAt: trip }).whole).toBe(false);
  });

  it("ends at now, not in the window's margin after it: an open incident read 1 min 40 s after its trip, and one cleared a minute ago", () => {
    // The story's window runs to the minute after now + 2 min (15:35:00); the chart stops at now.
    const now = new Date("2026-08-10T15:33:00.000Z");
    expect(storyChartSpan({ window: window("2026-08-10T15:36:00.000Z"), tripAt: trip, endAt: now.toISOString(), now })).toEqual({
      from: "2026-08-10T15:29:00.000Z",
      to: "2026-08-10T15:33:00.000Z",
      whole: true,
    });
    expect(storyChartSpan({ window: window("2026-08-10T15:36:00.000Z"), tripAt: trip, endAt: "2026-08-10T15:32:00.000Z", now }).to).toBe(
      "2026-08-10T15:33:00.000Z",
    );
    // Cleared long ago: the window's margin after the clear is past, and charted.
    expect(
      storyChartSpan({ window: window("2026-08-10T15:36:00.000Z"), tripAt: trip, endAt: "2026-08-10T15:33:00.000Z", now: new Date("2026-12-03T00:00:00.000Z") })
        .to,
    ).toBe("2026-08-10T15:36:00.000Z");
    // A trip or clear the bot's clock put after the console's now is still on the chart.
    expect(storyChartSpan({ window: window("2026-08-10T15:36:00.000Z"), tripAt: trip, endAt: "2026-08-10T15:33:30.000Z", now }).to).toBe(
      "2026-08-10T15:33:30.000Z",
    );
    // A long open one: its hour around the trip is past, and unchanged.
    expect(
      storyChartSpan({ window: window("2026-12-03T11:20:00.000Z"), tripAt: trip, endAt: "2026-12-03T11:17:00.000Z", now: new Date("2026-12-03T11:17:00.000Z") })
        .to,
    ).toBe("2026-08-10T16:22:00.000Z");
  });
});

describe("the durations' words", () => {
  it("keeps each run of number-unit pairs in one piece, and the words around it apart", () => {
    expect(durationPieces("not yet (114 d 23 h so far)")).toEqual([
      { text: "not yet (", whole: false },
      { text: "114 d 23 h", whole: true },
      { text: " so far)", whole: false },
    ]);
    expect(durationPieces("40 min 30 s")).toEqual([{ text: "40 min 30 s", whole: true }]);
    expect(durationPieces("0 s")).toEqual([{ text: "0 s", whole: true }]);
    expect(durationPieces("no doubtful order behind it")).toEqual([{ text: "no doubtful order behind it", whole: false }]);
    expect(durationPieces("unknown: orders of that time were pruned on Dec 2 2026")).toEqual([
      { text: "unknown: orders of that time were pruned on Dec 2 2026", whole: false },
    ]);
  });
});

describe("the post-mortem's file name", () => {
  const at = "2026-12-03T05:31:42.123Z";

  it("names the trip's minute first, so two journals started afresh do not give their incident 1 one name, and a folder sorts by time", () => {
    expect(postmortemFilename({ id: 1, botId: "bot-b", startedAt: "2026-12-03T05:31:42.123Z" })).toBe("driftwatch-incident-2026-12-03T0531Z_1_bot-b.md");
    expect(postmortemFilename({ id: 1, botId: "bot-b", startedAt: "2026-12-04T09:02:00.000Z" })).toBe("driftwatch-incident-2026-12-04T0902Z_1_bot-b.md");
    expect(postmortemFilename({ id: 1, botId: "bot-b", startedAt: "not a time" })).toBe("driftwatch-incident-undated_1_bot-b.md");
  });

  it("names every incident apart: journal a with bot 1-2-b and journal a-1 with bot b never share a download name", () => {
    // The pairs that shared one under `driftwatch-incident-<journal>-<id>-<bot>.md`.
    expect(postmortemFilename({ id: 1, botId: "1-2-b", startedAt: at }, "a")).toBe("driftwatch-incident-2026-12-03T0531Z_a-1_1-2-b.md");
    expect(postmortemFilename({ id: 1, botId: "2-b", startedAt: at }, "a-1")).toBe("driftwatch-incident-2026-12-03T0531Z_a-1-1_2-b.md");
    expect(postmortemFilename({ id: 2, botId: "b", startedAt: at }, "a-1-1")).toBe("driftwatch-incident-2026-12-03T0531Z_a-1-1-2_b.md");
    expect(postmortemFilename({ id: 1, botId: "2-b", startedAt: at }, "a")).toBe("driftwatch-incident-2026-12-03T0531Z_a-1_2-b.md");
    expect(postmortemFilename({ id: 2, botId: "b", startedAt: at }, "a-1")).toBe("driftwatch-incident-2026-12-03T0531Z_a-1-2_b.md");
    // A bot's `_` cannot pass for the end of the address: trip 1 of journal a with bot 2_b is not journal a-1-2's trip.
    expect(postmortemFilename({ id: 1, botId: "2_b", startedAt: at }, "a")).toBe("driftwatch-incident-2026-12-03T0531Z_a-1_2-b.md");
    expect(postmortemFilename({ id: 12, botId: "../bot b", startedAt: at })).toBe("driftwatch-incident-2026-12-03T0531Z_12_bot-b.md");
  });

  it("gives two different incidents (journal and trip) two different names, whatever the names of their journals and bots", () => {
    const journal = fc.option(fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/), { nil: undefined });
    const incident = fc.record({ journal, id: fc.integer({ min: 1, max: 2 ** 40 }), botId: fc.string({ maxLength: 60 }), startedAt: fc.constant(at) });
    fc.assert(
      fc.property(incident, incident, (a, b) => {
        const name = postmortemFilename(a, a.journal);
        expect(name).toMatch(/^driftwatch-incident-[A-Za-z0-9._-]+\.md$/);
        if (name === postmortemFilename(b, b.journal)) expect([b.journal, b.id]).toEqual([a.journal, a.id]);
      }),
      { numRuns: 2_000 },
    );
    // The shrunk pairs the property is most likely to miss: one journal's name ends where another's trip begins.
    const names = ["a", "a-1", "a-1-1", "a_1", "a-1_2", "a..b", "a.b"].flatMap((j) =>
      [1, 2, 12].flatMap((id) => ["b", "2-b", "1-2-b", "2_b", "_", ""].map((botId) => ({ j, id, name: postmortemFilename({ id, botId, startedAt: at }, j) }))),
    );
    for (const x of names) for (const y of names) if (x.name === y.name) expect([y.j, y.id]).toEqual([x.j, x.id]);
  });
});
