/**
 * Where a chart of compared cycles has none: the spans between two of its points that lie further
 * apart than the chart's cycles ever do. Drawn joined, a step line carried the last known books
 * straight across them, so a bot stopped for a minute, or cycles skipped while fills settled, read
 * as a quiet market (a try-out, on an incident's chart). Pure, on the points the chart draws.
 */

/** A span with no compared cycle, epoch ms: from the last point before it to the first after it. */
export interface ChartGap {
  from: number;
  to: number;
}

/**
 * `times` in order. `bucketMs`: the width of a downsampling bucket when the points were thinned
 * (null when every cycle is drawn): a bucket keeps points anywhere inside it, so only a gap wider
 * than two buckets is sure to hold no cycle. Every cycle drawn, a gap is four times the median
 * interval between points (the bot's cycle), and at least `minMs`, so a cycle late by a second or
 * two draws no gap. `windowEnd`: the end of the window the chart shows, never after now; a span
 * from the last point to it is a gap by the same rule. `pruned`: spans whose cycles were pruned
 * (their rollups are minutes apart): no gap there, since the page says they were pruned.
 */
export function chartGaps(
  times: readonly number[],
  bucketMs: number | null,
  minMs = 10_000,
  windowEnd?: number,
  pruned?: readonly { from: number; to: number }[],
): ChartGap[] {
  if (times.length < 3) return [];
  const limit = Math.max(bucketMs !== null ? 2 * bucketMs : 4 * medianStep(times), minMs);
  const gaps: ChartGap[] = [];
  for (let i = 1; i < times.length; i++) if (times[i]! - times[i - 1]! > limit) gaps.push({ from: times[i - 1]!, to: times[i]! });
  // From the last cycle to the window's end (now, at the latest): a bot stopped at the end of an
  // incident's window had its lines just end there, which read as the data ending (a try-out).
  const last = times[times.length - 1]!;
  if (windowEnd !== undefined && windowEnd - last > limit) gaps.push({ from: last, to: windowEnd });
  return pruned && pruned.length > 0 ? gaps.filter((g) => !pruned.some((p) => p.from < g.to && p.to > g.from)) : gaps;
}

/** The median interval between consecutive `times` (in order): a bot's cycle, as its points show it. */
export function medianStep(times: readonly number[]): number {
  const steps: number[] = [];
  for (let i = 1; i < times.length; i++) steps.push(times[i]! - times[i - 1]!);
  steps.sort((a, b) => a - b);
  return steps[Math.floor(steps.length / 2)] ?? NaN;
}

/**
 * The parts of [x1, x2] outside every gap (gaps in order, not overlapping). A drift's shading
 * carried across a stretch where no cycle compared the books claimed the drift went on there, and
 * under the grey band it came out a colour the chart's key does not have (a try-out).
 */
export function outsideGaps(x1: number, x2: number, gaps: readonly ChartGap[]): { x1: number; x2: number }[] {
  const out: { x1: number; x2: number }[] = [];
  let from = x1;
  for (const g of gaps) {
    if (g.to <= from || g.from >= x2) continue;
    if (g.from > from) out.push({ x1: from, x2: g.from });
    from = Math.max(from, g.to);
  }
  if (from < x2) out.push({ x1: from, x2 });
  return out;
}
