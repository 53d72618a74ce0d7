import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { IncidentEvent, IncidentSeverity } from "@/lib/incidents/events";
import { FOLD_ROUTINE_OVER, foldMinute, foldTimeline, isRoutine, tallyEvents, timelineBlocks, unchangedDrifts } from "@/lib/incidents/fold";
import { lineSummary, repeatLines, repeatWords } from "@/lib/incidents/lines";

let n = 0;
function event(source: IncidentEvent["source"], kind: string, severity: IncidentSeverity, actor = "bot"): IncidentEvent {
  n += 1;
  return {
    id: `${source}-${n}`,
    at: new Date(Date.UTC(2026, 10, 30, 3, 0, 0, n)).toISOString(),
    source,
    kind,
    botId: "alpha",
    actor,
    operator: source === "audit" || actor.startsWith("operator:"),
    severity,
    summary: `${kind} ${n}`,
    symbol: null,
    side: null,
    qty: null,
    strategy: null,
    clientOrderId: null,
    reconciliationId: null,
    reason: null,
    target: null,
    outcome: null,
    drifts: [],
    detail: null,
  };
}
const routine = (k: number) =>
  Array.from({ length: k }, (_, i) => (i % 3 === 0 ? event("reconciliation", "clean", "info") : event("order", i % 3 === 1 ? "intent" : "send", "info")));

describe("folding a busy minute", () => {
  it("shows a minute whole up to the threshold, and folds it above", () => {
    expect(foldMinute(routine(FOLD_ROUTINE_OVER))).toBeNull();
    const fold = foldMinute(routine(FOLD_ROUTINE_OVER + 1));
    expect(fold?.routine).toBe(FOLD_ROUTINE_OVER + 1);
    expect(fold?.notable).toEqual([]);
  });

  it("keeps every event where something went wrong or a person acted, in time order", () => {
    const timeout = event("order", "timeout", "warning");
    const unknown = event("order", "status", "emergency");
    const trip = event("breaker", "trip", "emergency");
    const operatorLookup = event("order", "lookup_found", "info", "operator:ana");
    const audit = event("audit", "resolve_order", "notice", "operator:ana");
    const drift = event("reconciliation", "drift", "warning");
    const events = [...routine(10), timeout, ...routine(10), unknown, trip, operatorLookup, ...routine(10), audit, drift];
    const fold = foldMinute(events)!;
    expect(fold.notable).toEqual([timeout, unknown, trip, operatorLookup, audit, drift]);
    expect(fold.routine).toBe(30);
  });

  it("counts the routine rest by kind, most frequent first, in words", () => {
    const events = [
      ...Array.from({ length: 12 }, () => event("order", "intent", "info")),
      ...Array.from({ length: 11 }, () => event("order", "send", "info")),
      event("reconciliation", "clean", "info"),
      event("order", "made_up_kind", "info"),
    ];
    expect(foldMinute(events)!.routineKinds.map((k) => k.words)).toEqual([
      "12 order intents",
      "11 orders sent",
      "1 order made up kind",
      "1 clean reconciliation",
    ]);
  });

  it("partitions any minute: every event is notable or counted, none twice", () => {
    const severity = fc.constantFrom<IncidentSeverity>("emergency", "warning", "notice", "info");
    const anEvent = fc
      .tuple(
        fc.constantFrom<IncidentEvent["source"]>("order", "reconciliation", "breaker", "audit"),
        fc.constantFrom("intent", "send", "clean", "trip", "status"),
        severity,
        fc.constantFrom("bot", "operator:ana"),
      )
      .map(([s, k, sev, actor]) => event(s, k, sev, actor));
    fc.assert(
      fc.property(fc.array(anEvent, { maxLength: 80 }), (events) => {
        const fold = foldMinute(events);
        const routineCount = events.filter(isRoutine).length;
        if (routineCount <= FOLD_ROUTINE_OVER) {
          expect(fold).toBeNull();
          return;
        }
        expect(fold!.notable).toEqual(events.filter((e) => !isRoutine(e)));
        expect(fold!.routine).toBe(routineCount);
        expect(fold!.routineKinds.reduce((a, k) => a + k.n, 0)).toBe(routineCount);
        expect(fold!.notable.some(isRoutine)).toBe(false);
      }),
    );
  });

  it("counts a drift cycle unchanged from the bot's one before as routine; a change, a clean cycle or another bot makes it notable again", () => {
    const drift = (bot: string, ours: number, symbol = "MSFT") => {
      const e = event("reconciliation", "drift", "warning");
      return { ...e, botId: bot, drifts: [{ symbol, ours, theirs: 29, qtyStep: 1, drift: "size_drift" as const }] };
    };
    const clean = (bot: string) => ({ ...event("reconciliation", "clean", "info"), botId: bot });
    const a1 = drift("alpha", 49);
    const a2 = drift("alpha", 49);
    const b1 = drift("beta", 49);
    const a3 = drift("alpha", 49);
    const a4 = drift("alpha", 50);
    const a5 = clean("alpha");
    const a6 = drift("alpha", 50);
    const a7 = drift("alpha", 50, "AAPL");
    const events = [a1, a2, b1, a3, a4, a5, a6, a7];
    const unchanged = unchangedDrifts(events);
    expect([...unchanged]).toEqual([a2.id, a3.id]);
    const many = [...events, ...routine(FOLD_ROUTINE_OVER)];
    const fold = foldMinute(many, FOLD_ROUTINE_OVER, unchanged)!;
    expect(fold.notable).toEqual([a1, b1, a4, a6, a7]);
    expect(fold.routineKinds.find((k) => k.words.includes("unchanged"))?.words).toBe("2 drift cycles unchanged from the one before");
  });
});

describe("folding the window minute by minute", () => {
  it("groups consecutive events of a minute, folds the busy ones, and lists a busy run of unreadable times whole", () => {
    const quiet = [event("order", "intent", "info"), event("order", "timeout", "warning")].map((e) => ({ ...e, at: "2026-11-30T02:59:59.000Z" }));
    const busy = [...routine(FOLD_ROUTINE_OVER + 5), event("breaker", "trip", "emergency")];
    const unreadable = routine(FOLD_ROUTINE_OVER + 1).map((e) => ({ ...e, at: "yesterday" }));
    const minutes = foldTimeline([...quiet, ...busy, ...unreadable]);
    expect(minutes.map((m) => [m.total, m.shown.length, m.fold === null])).toEqual([
      [2, 2, true],
      [FOLD_ROUTINE_OVER + 6, 1, false],
      [FOLD_ROUTINE_OVER + 1, FOLD_ROUTINE_OVER + 1, false],
    ]);
    expect(minutes[0]!.start).toBe(Date.UTC(2026, 10, 30, 2, 59));
    expect(minutes[2]!.start).toBeNaN();
    expect(tallyEvents([...quiet, ...busy])).toEqual({ trips: 1, unknownPositions: 0, unknownPositionsFound: [], unknownOrders: 0, operatorActions: 0 });
  });
});

describe("busy minutes in a row with nothing notable, one block", () => {
  /** `k` routine events at minute `m` past 03:00 (one in three a clean cycle), and a trip there when `trip`. */
  const minute = (m: number, k: number, trip = false) =>
    [...routine(k), ...(trip ? [event("breaker", "trip", "emergency")] : [])].map((e, i) => ({
      ...e,
      at: new Date(Date.UTC(2026, 10, 30, 3, m, 0, i)).toISOString(),
    }));
  const busy = FOLD_ROUTINE_OVER + 3;

  it("counts a run of quiet busy minutes together; a notable minute, a gap or a quieter minute ends the run", () => {
    const events = [
      ...minute(0, busy),
      ...minute(1, busy),
      ...minute(2, busy + 3),
      ...minute(3, busy, true), // notable: ends the run
      ...minute(4, busy),
      ...minute(5, busy),
      // 03:06 has nothing: a gap ends the run
      ...minute(7, busy),
      ...minute(8, 3), // shown whole: not a folded minute
      ...minute(9, busy),
      ...minute(10, busy),
    ];
    const blocks = timelineBlocks(foldTimeline(events));
    expect(blocks.map((b) => (b.kind === "quiet" ? `quiet ${b.minutes.map((m) => m.index).join(",")}` : `minute ${b.index}`))).toEqual([
      "quiet 0,1,2",
      "minute 3",
      "quiet 4,5",
      "minute 6",
      "minute 7",
      "quiet 8,9",
    ]);
    const first = blocks[0]!;
    if (first.kind !== "quiet") throw new Error("not a run");
    // Every event of the run counted, by kind, with the same words as a minute's line.
    expect(first.total).toBe(3 * busy + 3);
    expect(first.routine).toBe(3 * busy + 3);
    expect(first.counts.reduce((n, c) => n + c.n, 0)).toBe(first.routine);
    expect(first.routineKinds.map((k) => k.n)).toEqual(first.counts.map((c) => c.n));
    expect(first.routineKinds[0]!.words).toMatch(/^\d+ (order intents|orders sent|clean reconciliations)$/);
  });

  it("leaves a single quiet minute, and every minute of an all-notable window, on its own", () => {
    expect(timelineBlocks(foldTimeline(minute(0, busy))).map((b) => b.kind)).toEqual(["minute"]);
    expect(timelineBlocks(foldTimeline([...minute(0, busy, true), ...minute(1, busy, true)])).map((b) => b.kind)).toEqual(["minute", "minute"]);
  });

  it("keeps every minute once, in order, whatever the mix (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ skip: fc.boolean(), k: fc.integer({ min: 1, max: busy + 5 }), trip: fc.boolean() }), { maxLength: 12 }), (spec) => {
        let m = 0;
        const events = spec.flatMap((x) => {
          m += x.skip ? 2 : 1;
          return minute(m, x.k, x.trip);
        });
        const minutes = foldTimeline(events);
        const indexes = timelineBlocks(minutes).flatMap((b) => (b.kind === "quiet" ? b.minutes.map((x) => x.index) : [b.index]));
        expect(indexes).toEqual(minutes.map((_, i) => i));
      }),
    );
  });
});

describe("a run of events that say the same thing, one line", () => {
  // The try-out's minute: a lookup failing every 2.5 s, 23 times, among routine fills.
  const lookupFailed = (i: number, extra: Partial<IncidentEvent> = {}): IncidentEvent => ({
    ...event("order", "error", "warning"),
    at: new Date(Date.UTC(2026, 10, 30, 14, 10, 0, 500 + i * 2_500)).toISOString(),
    clientOrderId: "a-98",
    summary: `error on buy 98 SOLUSDT during lookup: lookup failed (attempt ${i + 1})`,
    ...extra,
  });

  it("shows a busy minute's 23 identical errors once, ×23 with their first and last time, each still on the line", () => {
    const errors = Array.from({ length: 23 }, (_, i) => lookupFailed(i));
    const fills = routine(FOLD_ROUTINE_OVER + 1).map((e) => ({ ...e, at: "2026-11-30T14:10:01.000Z" }));
    const events = [...errors.slice(0, 10), ...fills, ...errors.slice(10)].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const [minute] = foldTimeline(events);
    expect(minute!.fold?.notable).toHaveLength(23);
    expect(minute!.lines).toHaveLength(1);
    expect(minute!.lines[0]).toMatchObject({ event: errors[0], count: 23, firstAt: errors[0]!.at, lastAt: errors[22]!.at });
    // Said once without "(attempt 1)", which read as the first attempt 23 times; a line of one keeps it.
    expect(lineSummary(minute!.lines[0]!)).toBe("error on buy 98 SOLUSDT during lookup: lookup failed");
    expect(lineSummary({ event: errors[3]!, count: 1 })).toBe("error on buy 98 SOLUSDT during lookup: lookup failed (attempt 4)");
    // Nothing is lost: every event is the line's first or one of its repeats.
    expect([minute!.lines[0]!.event, ...minute!.lines[0]!.repeats]).toEqual(errors);
  });

  it("ends a run at anything said differently: another order, bot, journal, kind or words, and keeps time order", () => {
    const a = lookupFailed(0);
    const other = [
      lookupFailed(1, { clientOrderId: "a-99" }),
      lookupFailed(2, { botId: "beta" }),
      lookupFailed(3, { journal: "desk-b" }),
      lookupFailed(4, { kind: "timeout" }),
      lookupFailed(5, { summary: "error on buy 98 SOLUSDT during lookup: rate limited" }),
    ];
    const lines = repeatLines([a, lookupFailed(6), ...other, lookupFailed(7)]);
    expect(lines.map((l) => l.count)).toEqual([2, 1, 1, 1, 1, 1, 1]);
    // The same words after a different line start a new run: the minute still reads in time order.
    expect(lines.at(-1)!.event.summary).toBe(a.summary.replace("attempt 1", "attempt 8"));
    expect(lines.reduce((n, l) => n + l.count, 0)).toBe(8);
  });

  it("puts a quiet minute's drift cycles unchanged from their drift on one line: on the drift's line, or their own when the drift began before", () => {
    const cycle = (second: number): IncidentEvent => ({
      ...event("reconciliation", "drift", "warning"),
      at: `2026-11-30T14:10:${String(second).padStart(2, "0")}.000Z`,
      summary: "DRIFT on 1 symbol: MSFT ours +49 / theirs +29 (size drift)",
      drifts: [{ symbol: "MSFT", ours: 49, theirs: 29, qtyStep: 1, drift: "size_drift" as const }],
    });
    // The drift begins in the minute: its first cycle is notable, the 14 after it the same.
    const begun = Array.from({ length: 15 }, (_, i) => cycle(i * 4));
    const [one] = foldTimeline(begun);
    expect(one!.lines.map((l) => [l.event.id, l.count, l.firstAt, l.lastAt])).toEqual([[begun[0]!.id, 15, begun[0]!.at, begun[14]!.at]]);
    expect(repeatWords(one!.lines[0]!)).toBe("×15 cycles");
    // The drift began before the window: every cycle here is unchanged, and they are one line all the same.
    const earlier = { ...cycle(0), at: "2026-11-30T14:09:56.000Z" };
    const minutes = foldTimeline([earlier, ...begun]);
    expect(minutes.at(-1)!.lines.map((l) => l.count)).toEqual([15]);
    // Clean cycles one after the other are one line; a notable event between two apart keeps them apart.
    const clean = (second: number) => ({
      ...event("reconciliation", "clean", "info"),
      summary: "reconciled: the books agree",
      at: `2026-11-30T14:11:${second}.000Z`,
    });
    const [quiet] = foldTimeline([clean(10), clean(20), lookupFailed(0, { at: "2026-11-30T14:11:25.000Z" }), clean(30), clean(40)]);
    expect(quiet!.lines.map((l) => [l.event.kind, l.count])).toEqual([
      ["clean", 2],
      ["error", 1],
      ["clean", 2],
    ]);
  });

  it("keeps each bot's runs: two bots failing or reconciling cleanly at once are a line each, not a line per cycle", () => {
    const at = (s: number) => `2026-11-30T14:12:${String(s).padStart(2, "0")}.000Z`;
    const failing = (i: number, botId: string) => lookupFailed(i, { botId, clientOrderId: `${botId}-1`, at: at(i * 2 + (botId === "beta" ? 1 : 0)) });
    const both = Array.from({ length: 6 }, (_, i) => [failing(i, "alpha"), failing(i, "beta")]).flat();
    expect(repeatLines(both).map((l) => [l.event.botId, l.count, l.firstAt, l.lastAt])).toEqual([
      ["alpha", 6, at(0), at(10)],
      ["beta", 6, at(1), at(11)],
    ]);
    // Quiet cycles of two bots, alternating: one line each.
    const clean = (s: number, botId: string) => ({ ...event("reconciliation", "clean", "info"), botId, summary: "reconciled: the books agree", at: at(s) });
    const cleans = [clean(20, "alpha"), clean(21, "beta"), clean(35, "alpha"), clean(36, "beta"), clean(50, "alpha"), clean(51, "beta")];
    const [minute] = foldTimeline(cleans);
    expect(minute!.lines.map((l) => [l.event.botId, l.count])).toEqual([
      ["alpha", 3],
      ["beta", 3],
    ]);
    // A bot's other notable event still ends its own run, and only its own.
    const lines = repeatLines([
      failing(0, "alpha"),
      failing(0, "beta"),
      lookupFailed(1, { botId: "alpha", clientOrderId: "alpha-1", kind: "timeout", at: at(2) }),
      failing(1, "alpha"),
      failing(1, "beta"),
    ]);
    expect(lines.map((l) => [l.event.botId, l.event.kind, l.count])).toEqual([
      ["alpha", "error", 1],
      ["beta", "error", 2],
      ["alpha", "timeout", 1],
      ["alpha", "error", 1],
    ]);
  });

  it("shows a quiet minute's repeats once too: a routine line listed between them neither joins nor ends the run", () => {
    const clean = event("reconciliation", "clean", "info");
    const intent = event("order", "intent", "info");
    const [minute] = foldTimeline([lookupFailed(0), clean, lookupFailed(1), intent, lookupFailed(2)].map((e) => ({ ...e, at: "2026-11-30T14:10:05.000Z" })));
    expect(minute!.fold).toBeNull();
    expect(minute!.shown).toHaveLength(5);
    expect(minute!.lines.map((l) => [l.event.kind, l.count])).toEqual([
      ["error", 3],
      ["clean", 1],
      ["intent", 1],
    ]);
  });
});

describe("the window's tallies", () => {
  const drift = (botId: string, symbols: string[], journal?: string): IncidentEvent => ({
    ...event("reconciliation", "drift", "emergency"),
    botId,
    drifts: symbols.map((symbol) => ({ symbol, ours: 0, theirs: 3, qtyStep: 1, drift: "unknown_position" as const })),
    ...(journal ? { journal } : {}),
  });

  it("counts an unknown position once however many cycles found it, and names each with the cycles that found it", () => {
    const cycles = [...Array.from({ length: 15 }, () => drift("alpha", ["ETHUSDT"])), drift("alpha", ["ETHUSDT", "SOLUSDT"]), drift("beta", ["ETHUSDT"])];
    expect(tallyEvents(cycles)).toMatchObject({
      unknownPositions: 3,
      unknownPositionsFound: [
        { botId: "alpha", symbol: "ETHUSDT", cycles: 16 },
        { botId: "alpha", symbol: "SOLUSDT", cycles: 1 },
        { botId: "beta", symbol: "ETHUSDT", cycles: 1 },
      ],
    });
  });

  it("keeps apart the same bot and symbol in two journals", () => {
    expect(tallyEvents([drift("alpha", ["ETHUSDT"], "desk-a"), drift("alpha", ["ETHUSDT"], "desk-b")])).toMatchObject({
      unknownPositions: 2,
      unknownPositionsFound: [
        { journal: "desk-a", symbol: "ETHUSDT", cycles: 1 },
        { journal: "desk-b", symbol: "ETHUSDT", cycles: 1 },
      ],
    });
  });
});
