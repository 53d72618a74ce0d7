import { describe, expect, it } from "vitest";
import { chartGaps, outsideGaps } from "@/lib/charts/gaps";

const every = (stepMs: number, n: number, start = 0) => Array.from({ length: n }, (_, i) => start + i * stepMs);

describe("chartGaps", () => {
  it("finds a stretch with no compared cycle among regular cycles: a stopped bot, or cycles skipped", () => {
    const times = [...every(2_500, 20), ...every(2_500, 20, 19 * 2_500 + 66_000)];
    expect(chartGaps(times, null)).toEqual([{ from: 19 * 2_500, to: 19 * 2_500 + 66_000 }]);
  });

  it("draws none for cycles a second or two late, nor below the floor", () => {
    const jitter = every(15_000, 30).map((t, i) => t + (i % 3) * 1_500);
    expect(chartGaps(jitter, null)).toEqual([]);
    // Every second, one 9 s late: under the 10 s floor.
    expect(chartGaps([...every(1_000, 10), 18_000, 19_000, 20_000], null)).toEqual([]);
  });

  it("with thinned points, only a gap wider than two buckets", () => {
    const bucket = 300_000;
    // Points anywhere in their buckets: 9 min apart inside two neighbouring buckets is no gap.
    expect(chartGaps([0, 10_000, 290_000, 310_000, 590_000, 600_000], bucket)).toEqual([]);
    expect(chartGaps([0, 290_000, 300_000, 1_500_000, 1_510_000], bucket)).toEqual([{ from: 300_000, to: 1_500_000 }]);
  });

  it("needs three points to know a cycle", () => {
    expect(chartGaps([0, 600_000], null)).toEqual([]);
  });

  it("counts the end of the window after the last cycle, by the same rule", () => {
    const times = every(15_000, 10);
    expect(chartGaps(times, null, 10_000, times[9]! + 20_000)).toEqual([]);
    expect(chartGaps(times, null, 10_000, times[9]! + 90_000)).toEqual([{ from: times[9], to: times[9]! + 90_000 }]);
  });
});

describe("a drift's shading outside the gaps", () => {
  const gaps = [
    { from: 100, to: 200 },
    { from: 300, to: 400 },
  ];
  it("cuts a span at every gap it crosses, and keeps one that crosses none", () => {
    expect(outsideGaps(50, 350, gaps)).toEqual([
      { x1: 50, x2: 100 },
      { x1: 200, x2: 300 },
    ]);
    expect(outsideGaps(210, 290, gaps)).toEqual([{ x1: 210, x2: 290 }]);
    expect(outsideGaps(0, 1000, [])).toEqual([{ x1: 0, x2: 1000 }]);
  });
  it("drops a span wholly inside a gap, and one that ends where a gap starts keeps all of it", () => {
    expect(outsideGaps(120, 180, gaps)).toEqual([]);
    expect(outsideGaps(50, 100, gaps)).toEqual([{ x1: 50, x2: 100 }]);
    expect(outsideGaps(150, 450, gaps)).toEqual([
      { x1: 200, x2: 300 },
      { x1: 400, x2: 450 },
    ]);
  });
});

describe("gaps and pruned spans", () => {
  it("finds no gap where the cycles were pruned (rollups minutes apart), and keeps the others", () => {
    // Cycles every 15 s, then pruned (rollups 5 min apart from 1,000,000), then cycles again, and a stop.
    const times = [...every(15_000, 20), ...every(300_000, 6, 1_000_000), ...every(15_000, 20, 2_600_000), ...every(15_000, 5, 3_200_000)];
    const all = chartGaps(times, null);
    const kept = chartGaps(times, null, undefined, undefined, [{ from: 290_000, to: 2_600_000 }]);
    expect(all.length).toBeGreaterThan(kept.length);
    expect(kept).toEqual([{ from: 2_600_000 + 19 * 15_000, to: 3_200_000 }]);
  });
});
