import { describe, expect, it } from "vitest";
import { INCIDENT_MARGIN_MS, ROLLUP_MS, incidentSpans, parseKeep, pruneHorizon, prunedSpans } from "@/lib/journal/retention";

const t = (iso: string) => Date.parse(iso);
const H = 3_600_000;

describe("retention rules", () => {
  it("reads a horizon in hours, days or weeks and refuses one under a day or without a unit", () => {
    expect(parseKeep("30d")).toEqual({ ok: true, ms: 30 * 24 * H });
    expect(parseKeep("2w")).toEqual({ ok: true, ms: 14 * 24 * H });
    expect(parseKeep("36h")).toEqual({ ok: true, ms: 36 * H });
    for (const bad of ["23h", "30", "d", "-1d", "1.5d", ""]) expect(parseKeep(bad).ok).toBe(false);
  });

  it("puts the horizon on a five-minute boundary, so pruned history is whole rollup buckets", () => {
    const h = pruneHorizon(t("2026-12-01T08:27:13.500Z"), 24 * H);
    expect(new Date(h).toISOString()).toBe("2026-11-30T08:25:00.000Z");
    expect(h % ROLLUP_MS).toBe(0);
  });

  it("keeps an incident from an hour before its trip to an hour after its clear, inclusive, and an open one for good", () => {
    const spans = incidentSpans([
      { at: "2026-11-01T10:02:00.001Z", kind: "trip" },
      { at: "2026-11-01T10:05:00.000Z", kind: "trip" }, // a second trip while halted: the same incident
      { at: "2026-11-01T10:30:00.000Z", kind: "clear" },
      { at: "2026-11-03T00:00:00.000Z", kind: "trip" },
    ]);
    expect(spans).toEqual([
      { from: t("2026-11-01T09:00:00.000Z"), to: t("2026-11-01T11:35:00.000Z") },
      { from: t("2026-11-02T23:00:00.000Z"), to: Infinity },
    ]);
    expect(INCIDENT_MARGIN_MS).toBe(H);
  });

  it("names the parts of a window that were pruned: before the horizon, outside every kept span", () => {
    const kept = [{ from: t("2026-11-01T09:00:00Z"), to: t("2026-11-01T11:35:00Z") }];
    const window = { from: t("2026-11-01T00:00:00Z"), to: t("2026-11-02T00:00:00Z") };
    expect(prunedSpans(window, t("2026-11-01T20:00:00Z"), kept)).toEqual([
      { from: t("2026-11-01T00:00:00Z"), to: t("2026-11-01T09:00:00Z") },
      { from: t("2026-11-01T11:35:00Z"), to: t("2026-11-01T20:00:00Z") },
    ]);
    expect(prunedSpans(window, t("2026-10-31T00:00:00Z"), kept)).toEqual([]);
    expect(prunedSpans({ from: t("2026-11-01T09:30:00Z"), to: t("2026-11-01T10:30:00Z") }, t("2026-11-05T00:00:00Z"), kept)).toEqual([]);
  });
});
