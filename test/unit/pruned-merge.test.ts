/**
 * The pruned history of a window over several journals: one journal's pruned cycles must never read
 * as a quiet market because another journal's facts were taken instead (lib/queries/pruned-history.ts).
 */
import { describe, expect, it } from "vitest";
import { mergePrunedHistories, type PrunedHistory } from "@/lib/queries/pruned-history";

const t = (hh: number, mm = 0) => Date.UTC(2026, 11, 1, hh, mm);
const history = (over: Partial<PrunedHistory>): PrunedHistory => ({
  horizon: "2026-11-01T00:00:00.000Z",
  prunedOn: "2026-12-02T02:35:00.000Z",
  spans: [],
  incidentHorizon: null,
  incidentPruned: null,
  hourly: null,
  orders: null,
  interrupted: false,
  ...over,
});

describe("several journals' pruned histories, merged", () => {
  it("is the one journal's history, or null, when fewer than two have one", () => {
    const a = history({ spans: [{ from: t(3), to: t(4) }] });
    expect(mergePrunedHistories([null, a, null])).toBe(a);
    expect(mergePrunedHistories([null, null])).toBeNull();
  });

  it("keeps every journal's gaps, the newest of each horizon, the earliest prune date and any prune left unfinished", () => {
    const alpha = history({
      horizon: "2026-11-20T00:00:00.000Z",
      prunedOn: "2026-12-02T02:35:00.000Z",
      spans: [{ from: t(3), to: t(3, 20) }],
      orders: { before: "2026-11-01T00:00:00.000Z", on: "2026-12-02T02:35:00.000Z" },
      incidentPruned: { before: "2026-10-01T00:00:00.000Z", on: "2026-12-02T02:35:00.000Z", count: 1 },
    });
    const beta = history({
      horizon: "2026-11-25T00:00:00.000Z",
      prunedOn: "2026-12-01T01:00:00.000Z",
      spans: [
        { from: t(3, 10), to: t(3, 30) },
        { from: t(3, 45), to: t(4) },
      ],
      incidentHorizon: "2026-10-15T00:00:00.000Z",
      incidentPruned: { before: "2026-10-15T00:00:00.000Z", on: "2026-12-01T01:00:00.000Z", count: 2 },
      interrupted: true,
    });
    expect(mergePrunedHistories([alpha, beta])).toEqual({
      horizon: "2026-11-25T00:00:00.000Z",
      prunedOn: "2026-12-01T01:00:00.000Z",
      spans: [
        { from: t(3), to: t(3, 30) },
        { from: t(3, 45), to: t(4) },
      ],
      incidentHorizon: "2026-10-15T00:00:00.000Z",
      incidentPruned: { before: "2026-10-15T00:00:00.000Z", on: "2026-12-01T01:00:00.000Z", count: 3 },
      hourly: null,
      orders: { before: "2026-11-01T00:00:00.000Z", on: "2026-12-02T02:35:00.000Z" },
      interrupted: true,
    });
  });
});
