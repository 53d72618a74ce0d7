import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compactEpisodes, downsample, Downsampler, shadeSpan, type ChartSample, type DriftEpisode } from "@/lib/charts/downsample";
import { classifyDrift, type DriftClass } from "@/lib/reconcile/diff";

const SECOND = 1_000;
const DAY = 86_400_000;
const T0 = Date.parse("2026-08-10T00:00:00.000Z");

const at = (t: number, ours: number, theirs: number, qtyStep = 1): ChartSample => ({ t, ours, theirs, drift: classifyDrift({ ours, theirs, qtyStep }) });

/** `n` cycles every `everyMs`, both books at 500 except where `change` says otherwise. */
function cycles(n: number, everyMs: number, change: (i: number) => [number, number] | undefined = () => undefined): ChartSample[] {
  return Array.from({ length: n }, (_, i) => {
    const [ours, theirs] = change(i) ?? [500, 500];
    return at(T0 + i * everyMs, ours, theirs);
  });
}

const severity: Record<DriftClass, number> = { none: 0, size_drift: 1, unknown_position: 2 };

/** Every drifting input sample lies in an output episode of its own kind or a worse one. */
function expectEveryDriftCovered(samples: ChartSample[], episodes: DriftEpisode[]) {
  for (const s of samples) {
    if (s.drift === "none") continue;
    const cover = episodes.find((e) => e.from <= s.t && s.t <= e.to && severity[e.kind] >= severity[s.drift]);
    expect(cover, `drift at ${new Date(s.t).toISOString()} (${s.drift}) has no shaded episode`).toBeDefined();
  }
}

describe("downsample", () => {
  it("returns nothing for no samples", () => {
    expect(downsample([], { from: T0, to: T0 + DAY })).toEqual({ points: [], episodes: [], samples: 0, bucketMs: null });
  });

  it("keeps every sample when there are few enough", () => {
    const input = cycles(900, SECOND);
    const out = downsample(input, { from: T0, to: T0 + 900 * SECOND, maxPoints: 2000 });
    expect(out.points).toEqual(input);
    expect(out.bucketMs).toBeNull();
  });

  it("never returns more than maxPoints, in time order, whatever the window", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 14, max: 600 }), fc.integer({ min: 1, max: 60_000 }), (n, maxPoints, everyMs) => {
        const input = cycles(n, everyMs, (i) => (i % 97 === 3 ? [500, 480 - (i % 7)] : undefined));
        const out = downsample(input, { from: T0, to: T0 + Math.max(1, n) * everyMs, maxPoints });
        expect(out.points.length).toBeLessThanOrEqual(maxPoints);
        expect(out.samples).toBe(n);
        for (let i = 1; i < out.points.length; i++) expect(out.points[i]!.t).toBeGreaterThanOrEqual(out.points[i - 1]!.t);
      }),
      { numRuns: 60 },
    );
  });

  it("keeps the lowest and highest of both books, so a one-cycle dip still draws", () => {
    // 20 days of 10-second cycles (172,800) into 2,000 points; theirs dips to 300 for one cycle, ours
    // jumps to 900 for another.
    const n = (20 * DAY) / (10 * SECOND);
    const input = cycles(n, 10 * SECOND, (i) => (i === 100_001 ? [500, 300] : i === 33_333 ? [900, 500] : undefined));
    const out = downsample(input, { from: T0, to: T0 + 20 * DAY, maxPoints: 2000 });
    expect(out.points.length).toBeLessThanOrEqual(2000);
    expect(out.bucketMs).not.toBeNull();
    expect(Math.min(...out.points.map((p) => p.theirs))).toBe(300);
    expect(Math.max(...out.points.map((p) => p.ours))).toBe(900);
    expect(out.points).toContainEqual(input[100_001]);
    expect(out.points).toContainEqual(input[33_333]);
    // The first and last cycles are kept, so the lines span the data.
    expect(out.points[0]).toEqual(input[0]);
    expect(out.points.at(-1)).toEqual(input.at(-1));
  });

  it("keeps a single-cycle drift in a 20-day window as its own shaded episode", () => {
    const n = (20 * DAY) / (10 * SECOND);
    const input = cycles(n, 10 * SECOND, (i) => (i === 123_456 ? [500, 499] : undefined));
    const out = downsample(input, { from: T0, to: T0 + 20 * DAY, maxPoints: 2000 });
    expect(out.episodes).toEqual([{ kind: "size_drift", from: input[123_456]!.t, to: input[123_457]!.t, ongoing: false, samples: 1, merged: 1 }]);
  });

  it("ends an episode at the next cycle out of it, and marks a drift still going at the end", () => {
    const input = [at(T0, 500, 500), at(T0 + 1000, 500, 300), at(T0 + 2000, 500, 300), at(T0 + 3000, 0, 3), at(T0 + 4000, 0, 3)];
    const out = downsample(input, { from: T0, to: T0 + 5000 });
    expect(out.episodes).toEqual([
      { kind: "size_drift", from: T0 + 1000, to: T0 + 3000, ongoing: false, samples: 2, merged: 1 },
      { kind: "unknown_position", from: T0 + 3000, to: T0 + 4000, ongoing: true, samples: 2, merged: 1 },
    ]);
  });

  it("reads drift with the contract's tolerance: half a step is a drift, less is not", () => {
    const input = [at(T0, 10, 10.25), at(T0 + 1, 10, 10.5), at(T0 + 2, 0.25, 0), at(T0 + 3, 0.25, 2)];
    const out = downsample(input, { from: T0, to: T0 + 10 });
    expect(out.episodes.map((e) => [e.kind, e.from - T0])).toEqual([
      ["size_drift", 1],
      ["unknown_position", 3],
    ]);
  });

  it("covers every drift, however many and however short, at any zoom", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.constantFrom<[number, number]>([500, 499], [0, 5], [500, 0])), { maxLength: 400 }),
        fc.integer({ min: 14, max: 3000 }),
        (drifts, maxPoints) => {
          const at = new Map(drifts);
          const input = cycles(20_000, 60 * SECOND, (i) => at.get(i));
          const out = downsample(input, { from: T0, to: T0 + 20_000 * 60 * SECOND, maxPoints });
          expectEveryDriftCovered(input, out.episodes);
          expect(out.episodes.reduce((n, e) => n + e.samples, 0)).toBe(input.filter((s) => s.drift !== "none").length);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("bounds the episodes of a book that flaps every cycle, and still covers each drift", () => {
    const input = cycles(200_000, SECOND, (i) => (i % 2 ? [500, 499] : i % 3 ? [0, 2] : undefined));
    const out = downsample(input, { from: T0, to: T0 + 200_000 * SECOND, maxPoints: 2000 });
    expect(out.points.length).toBeLessThanOrEqual(2000);
    expect(out.episodes.length).toBeLessThanOrEqual(500);
    expectEveryDriftCovered(input, out.episodes);
    expect(out.episodes.some((e) => e.kind === "unknown_position")).toBe(true);
  });

  it("clamps samples outside the window to its edges", () => {
    const out = downsample([at(T0 - 5000, 500, 300), at(T0 + 1000, 500, 500)], { from: T0, to: T0 + 2000 });
    expect(out.points.map((p) => p.t)).toEqual([T0, T0 + 1000]);
    expect(out.episodes).toEqual([{ kind: "size_drift", from: T0, to: T0 + 1000, ongoing: false, samples: 1, merged: 1 }]);
  });

  it("refuses samples out of time order and an empty window", () => {
    const d = new Downsampler({ from: T0, to: T0 + 10 });
    d.push(at(T0 + 5, 1, 1));
    expect(() => d.push(at(T0 + 4, 1, 1))).toThrow(/time order/);
    expect(() => new Downsampler({ from: T0, to: T0 })).toThrow(/end after/);
  });
});

describe("compactEpisodes", () => {
  const ep = (kind: DriftEpisode["kind"], from: number, to: number): DriftEpisode => ({ kind, from, to, ongoing: false, samples: 1, merged: 1 });

  it("leaves a list that fits alone", () => {
    const list = [ep("size_drift", 0, 1), ep("size_drift", 2, 3)];
    expect(compactEpisodes(list, 10, 5)).toEqual(list);
  });

  it("merges close neighbours of one kind first, then any, the worse kind winning", () => {
    const list = [ep("size_drift", 0, 1), ep("size_drift", 2, 3), ep("unknown_position", 3, 4), ep("size_drift", 100, 101)];
    expect(compactEpisodes(list, 10, 3).map((e) => [e.kind, e.from, e.to, e.merged])).toEqual([
      ["size_drift", 0, 3, 2],
      ["unknown_position", 3, 4, 1],
      ["size_drift", 100, 101, 1],
    ]);
    expect(compactEpisodes(list, 10, 2).map((e) => [e.kind, e.from, e.to, e.merged])).toEqual([
      ["unknown_position", 0, 4, 3],
      ["size_drift", 100, 101, 1],
    ]);
  });
});

describe("shadeSpan", () => {
  const window = { from: 0, to: 20 * DAY };

  it("widens a one-cycle drift so it shows at any zoom, inside the window", () => {
    const { x1, x2 } = shadeSpan({ from: 5 * DAY, to: 5 * DAY + 10 * SECOND }, window);
    expect(x2 - x1).toBeCloseTo((20 * DAY) / 250);
    expect(x1).toBeLessThanOrEqual(5 * DAY);
    expect(x2).toBeGreaterThanOrEqual(5 * DAY + 10 * SECOND);
  });

  it("keeps a wide drift as it is and a drift at an edge inside the window", () => {
    expect(shadeSpan({ from: DAY, to: 3 * DAY }, window)).toEqual({ x1: DAY, x2: 3 * DAY });
    const edge = shadeSpan({ from: 20 * DAY, to: 20 * DAY }, window);
    expect(edge.x2).toBe(20 * DAY);
    expect(edge.x1).toBeCloseTo(20 * DAY - (20 * DAY) / 250);
  });
});
