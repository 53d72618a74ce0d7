import { describe, expect, it } from "vitest";
import type { IncidentEvent } from "@/lib/incidents/events";
import { cycleSilences, cycleWords, togetherSilences } from "@/lib/incidents/silences";

const T0 = Date.UTC(2026, 11, 5, 13, 0, 0);

/** A reconciliation of `botId` at `ms` after 13:00:00 UTC. */
function cycle(botId: string, ms: number, journal?: string): IncidentEvent {
  return {
    id: `reconciliation-${botId}-${ms}`,
    at: new Date(T0 + ms).toISOString(),
    source: "reconciliation",
    kind: "clean",
    botId,
    actor: "bot",
    operator: false,
    severity: "info",
    summary: "reconciled: the books agree",
    symbol: null,
    side: null,
    qty: null,
    strategy: null,
    clientOrderId: null,
    reconciliationId: ms,
    reason: null,
    target: null,
    outcome: null,
    drifts: [],
    detail: null,
    ...(journal ? { journal } : {}),
  };
}

/** Cycles every `step` ms over [from, to). */
const cycles = (botId: string, from: number, to: number, step = 2_500, journal?: string) =>
  Array.from({ length: Math.ceil((to - from) / step) }, (_, i) => cycle(botId, from + i * step, journal));
const inOrder = (events: IncidentEvent[]) => [...events].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));

describe("a bot's silences in an incident window", () => {
  it("finds a 45 s pause of one bot among regular cycles, with its cycle, and nothing of the other bot", () => {
    const events = inOrder([...cycles("alpha", 0, 150_000), ...cycles("alpha", 195_000, 300_000), ...cycles("beta", 0, 300_000, 5_000)]);
    expect(cycleSilences(events, { end: T0 + 300_000, capped: false })).toEqual([
      { botId: "alpha", from: new Date(T0 + 147_500).toISOString(), to: new Date(T0 + 195_000).toISOString(), ms: 47_500, cycleMs: 2_500 },
    ]);
  });

  it("counts a bot that stopped to the window's end, unless the window was cut at its cap", () => {
    const events = inOrder([...cycles("alpha", 0, 120_000), ...cycles("beta", 0, 300_000)]);
    expect(cycleSilences(events, { end: T0 + 300_000, capped: false })).toEqual([
      { botId: "alpha", from: new Date(T0 + 117_500).toISOString(), to: null, ms: 182_500, cycleMs: 2_500 },
    ]);
    expect(cycleSilences(events, { end: T0 + 300_000, capped: true })).toEqual([]);
  });

  it("leaves a late cycle, a pause under 10 s and a pruned span alone", () => {
    // One cycle 6 s late: over four cycles, under the 10 s floor.
    const late = inOrder([...cycles("alpha", 0, 60_000), ...cycles("alpha", 66_000, 120_000)]);
    expect(cycleSilences(late, { end: T0 + 120_000, capped: false })).toEqual([]);
    const pruned = inOrder([...cycles("alpha", 0, 60_000), ...cycles("alpha", 360_000, 420_000)]);
    expect(cycleSilences(pruned, { end: T0 + 420_000, capped: false, prunedSpans: [{ from: T0, to: T0 + 300_000 }] })).toEqual([]);
    expect(cycleSilences(pruned, { end: T0 + 420_000, capped: false })).toHaveLength(1);
  });

  it("keeps bots of the same name in two journals apart", () => {
    const events = inOrder([...cycles("alpha", 0, 120_000, 2_500, "north"), ...cycles("alpha", 0, 300_000, 2_500, "south")]);
    expect(cycleSilences(events, { end: T0 + 300_000, capped: false })).toEqual([
      { botId: "alpha", journal: "north", from: new Date(T0 + 117_500).toISOString(), to: null, ms: 182_500, cycleMs: 2_500 },
    ]);
  });

  it("says nothing of a bot with too few cycles to have a rhythm", () => {
    expect(cycleSilences([cycle("alpha", 0), cycle("alpha", 200_000)], { end: T0 + 300_000, capped: false })).toEqual([]);
  });
});

describe("silences told together", () => {
  it("tells bots that stopped and came back together (one process) as one, and keeps the others apart", () => {
    const events = inOrder([
      ...cycles("alpha", 0, 150_000),
      ...cycles("alpha", 210_000, 300_000),
      ...cycles("beta", 1_000, 151_000),
      ...cycles("beta", 211_000, 301_000),
      // gamma stops later, in another journal
      ...cycles("gamma", 0, 250_000, 2_500, "south"),
    ]);
    const told = togetherSilences(cycleSilences(events, { end: T0 + 300_000, capped: false }));
    expect(told.map((t) => [t.bots, t.journal ?? null, t.to === null])).toEqual([
      [["alpha", "beta"], null, false],
      [["gamma"], "south", true],
    ]);
  });
});

describe("a silence's cycle in words", () => {
  it("says a short cycle to a tenth of a second, a long one as any duration", () => {
    expect(cycleWords(2_500)).toBe("2.5 s");
    expect(cycleWords(15_000)).toBe("15 s");
    expect(cycleWords(90_000)).toBe("1 min 30 s");
  });
});
