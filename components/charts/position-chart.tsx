"use client";
import { memo, useMemo, useState } from "react";
import { CartesianGrid, Line, LineChart, ReferenceArea, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { shadeSpan, type ChartSample, type DriftEpisode } from "@/lib/charts/downsample";
import { chartGaps, outsideGaps } from "@/lib/charts/gaps";
import { formatUtcTick, utcTicks } from "@/lib/charts/time-ticks";
import { valueTicks } from "@/lib/charts/value-ticks";
import { formatUtc } from "@/lib/text/format";

export interface ChartMarker {
  id: number;
  /** Epoch ms. */
  t: number;
  /** A breaker's trip or clear; on an incident's chart also an operator's acknowledgement or book correction. */
  kind: "trip" | "clear" | "acknowledge" | "correction";
  reason: string;
}

const MARK_COLOUR: Record<ChartMarker["kind"], string> = {
  trip: "var(--c-trip)",
  clear: "var(--c-clear)",
  acknowledge: "var(--c-ack)",
  correction: "var(--c-fix)",
};
const MARK_LABEL: Record<ChartMarker["kind"], string> = { trip: "trip", clear: "clear", acknowledge: "ack", correction: "correction" };

export interface PositionChartProps {
  points: ChartSample[];
  episodes: DriftEpisode[];
  markers: ChartMarker[];
  /** The window, epoch ms. */
  from: number;
  to: number;
  /** What the chart shows, for screen readers. */
  label: string;
  /** The downsampling bucket when the points were thinned, null when every cycle is drawn (for where none was). */
  bucketMs: number | null;
  /** Spans whose cycles were pruned, epoch ms: drawn from rollups, minutes apart, which is not a stop. */
  prunedSpans?: readonly { from: number; to: number }[];
  height?: number;
}

/** A row that breaks both lines where no cycle compared the books. */
type ChartRow = ChartSample | { t: number; ours: null; theirs: null; drift: null };

// Colours come from CSS variables set per theme on the wrapper, so one SVG serves light and dark.
const theme =
  "[--c-ack:#1d4ed8] [--c-fix:#a16207] [--c-gap:#64748b] dark:[--c-ack:#93c5fd] dark:[--c-fix:#fde047] dark:[--c-gap:#94a3b8] " +
  "[--c-ours:#0369a1] [--c-theirs:#7c3aed] [--c-grid:#cbd5e1] [--c-axis:#475569] [--c-trip:#b91c1c] [--c-clear:#047857] [--c-size:#ea580c] [--c-unknown:#dc2626] " +
  "dark:[--c-ours:#7dd3fc] dark:[--c-theirs:#c4b5fd] dark:[--c-grid:#334155] dark:[--c-axis:#cbd5e1] dark:[--c-trip:#fca5a5] dark:[--c-clear:#6ee7b7] dark:[--c-size:#fb923c] dark:[--c-unknown:#f87171]";

const qty = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 8 });
const compact = (n: number) => n.toLocaleString("en-US", { notation: "compact", maximumFractionDigits: 3 });

/** Room a label takes, in pixels: "clear" 44, "correction" 73 (the axis's 12 px font, with its gap). */
const labelPx = (kind: ChartMarker["kind"]) => 11 + 6.2 * MARK_LABEL[kind].length;
const Y_AXIS_PX = 56;

/**
 * Which markers get a text label, and on which side of its line: to the right, or to the left near
 * the right edge, where a label set to the right would be cut off. A label that would print over
 * one already placed ("correctionclear", or a "trip" set left onto a "clear" set right) is left
 * out (every line is still drawn, and the list under the chart names them all); trips are placed
 * first, newest first.
 */
function labelled(markers: ChartMarker[], from: number, span: number, plotPx: number): Map<number, "insideTopLeft" | "insideTopRight"> {
  const out = new Map<number, "insideTopLeft" | "insideTopRight">();
  const perPx = span / Math.max(1, plotPx);
  const placed: [number, number][] = [];
  // Trips first, then the rest, each newest first: the trip of the halt in force keeps its label
  // when its neighbours cannot all have one.
  for (const m of [...markers].sort((a, b) => Number(b.kind === "trip") - Number(a.kind === "trip") || b.t - a.t)) {
    const left = m.t > from + span * 0.85;
    const width = labelPx(m.kind) * perPx;
    const box: [number, number] = left ? [m.t - width, m.t] : [m.t, m.t + width];
    if (placed.some(([a, b]) => box[0] < b && a < box[1])) continue;
    placed.push(box);
    // "insideTopRight" sets the label inside the line's top right corner, that is, to its left.
    out.set(m.id, left ? "insideTopRight" : "insideTopLeft");
  }
  return out;
}

const driftWords = { none: "in sync", size_drift: "size drift", unknown_position: "unknown position" } as const;

function PointTooltip({ active, payload }: { active?: boolean; payload?: ReadonlyArray<{ payload?: unknown }> }) {
  const p = payload?.[0]?.payload as ChartRow | undefined;
  if (!active || !p || p.ours === null) return null;
  return (
    <div className="rounded border border-slate-300 bg-white p-2 text-xs shadow dark:border-slate-600 dark:bg-slate-900">
      <p className="font-semibold">{formatUtc(new Date(p.t).toISOString())}</p>
      <p>ours {qty(p.ours)}</p>
      <p>theirs {qty(p.theirs)}</p>
      <p>{driftWords[p.drift]}</p>
    </div>
  );
}

/**
 * Ours against theirs over time as two step lines (a position holds until the next cycle), drift
 * periods shaded (red: a position the bot never opened; orange: a size drift), the breaker's trips
 * and clears as labelled vertical lines. Plain props; the page decides what to draw.
 */
// Memoised, and its derived data with it: the symbol page re-renders at every tick of the tab's
// clock (its ages count each second), and redrawing a 20-day chart each time kept a laptop's main
// thread busy about a second in every second, the page all but frozen (found while looking at the
// 35-day chart). It now redraws when its data, window or width change.
export const PositionChart = memo(function PositionChart({
  points,
  episodes,
  markers,
  from,
  to,
  label,
  bucketMs,
  prunedSpans,
  height = 300,
}: PositionChartProps) {
  // Where no cycle compared the books (the bot stopped, or its cycles were skipped): both lines stop
  // at the last compared cycle and a grey band says so, instead of carrying the books across.
  const { gaps, rows, yTicks } = useMemo(() => {
    const gaps = chartGaps(
      points.map((p) => p.t),
      bucketMs,
      undefined,
      // The window's end is now at the latest on every page that draws this chart (the symbol range, an incident's axis).
      to,
      // Rollups of pruned cycles are minutes apart: the page says they were pruned, and they are no stop.
      prunedSpans,
    );
    const rows: ChartRow[] = [];
    for (let i = 0, g = 0; i < points.length; i++) {
      rows.push(points[i]!);
      // After the last point at the gap's start (a thinned chart may hold two at one time).
      if (gaps[g]?.from === points[i]!.t && points[i + 1]?.t !== points[i]!.t) rows.push({ t: gaps[g++]!.from + 1, ours: null, theirs: null, drift: null });
    }
    let lo = Infinity;
    let hi = -Infinity;
    for (const p of points) {
      lo = Math.min(lo, p.ours, p.theirs);
      hi = Math.max(hi, p.ours, p.theirs);
    }
    return { gaps, rows, yTicks: valueTicks(lo, hi, 5) };
  }, [points, bucketMs, to, prunedSpans]);
  const span = to - from;
  const ticks = useMemo(() => utcTicks(from, to, 6), [from, to]);
  const dots = points.length <= 60;
  const [width, setWidth] = useState(320);
  const withLabel = useMemo(() => labelled(markers, from, span, width - Y_AXIS_PX - 12), [markers, from, span, width]);
  return (
    <div className={`${theme} w-full min-w-0`} role="img" aria-label={label} data-testid="position-chart">
      <ResponsiveContainer width="100%" height={height} minWidth={0} initialDimension={{ width: 320, height }} onResize={(w) => setWidth(w)}>
        <LineChart data={rows} margin={{ top: 18, right: 12, bottom: 4, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid stroke="var(--c-grid)" strokeDasharray="3 3" />
          <XAxis
            dataKey="t"
            type="number"
            domain={[from, to]}
            allowDataOverflow
            ticks={ticks}
            tickFormatter={(t: number) => formatUtcTick(t, span)}
            interval="preserveStartEnd"
            minTickGap={24}
            stroke="var(--c-axis)"
            tick={{ fill: "var(--c-axis)", fontSize: 12 }}
          />
          {/* Zero stays in view: flat is the reference a position is read against. */}
          <YAxis
            width={Y_AXIS_PX}
            stroke="var(--c-axis)"
            tick={{ fill: "var(--c-axis)", fontSize: 12 }}
            tickFormatter={compact}
            ticks={yTicks}
            domain={[yTicks[0] ?? 0, yTicks[yTicks.length - 1] ?? 1]}
            interval={0}
          />
          {episodes.flatMap((e) => {
            const { x1, x2 } = shadeSpan(e, { from, to });
            // Not across a stretch where no cycle compared the books: nothing says the drift went on there.
            return outsideGaps(x1, x2, gaps).map((piece, i) => (
              <ReferenceArea
                key={`${e.kind}-${e.from}-${i}`}
                x1={piece.x1}
                x2={piece.x2}
                fill={e.kind === "unknown_position" ? "var(--c-unknown)" : "var(--c-size)"}
                fillOpacity={0.28}
                ifOverflow="hidden"
                className={`drift-${e.kind}`}
              />
            ));
          })}
          {gaps.map((g) => (
            <ReferenceArea
              key={`gap-${g.from}`}
              x1={g.from}
              x2={g.to}
              fill="var(--c-gap)"
              fillOpacity={0.18}
              ifOverflow="hidden"
              className="no-cycle"
              // Named where the band has room for its words (about 80 px): two close bands ran theirs
              // together on a phone ("not comnotcompared", a try-out); the legend names every band.
              label={
                ((g.to - g.from) / Math.max(1, span)) * (width - Y_AXIS_PX - 12) >= 80
                  ? { value: "not compared", position: "insideBottom", fill: "var(--c-axis)", fontSize: 11 }
                  : undefined
              }
            />
          ))}
          {markers.map((m) => (
            <ReferenceLine
              key={m.id}
              x={m.t}
              stroke={MARK_COLOUR[m.kind]}
              strokeWidth={2}
              strokeDasharray={m.kind === "trip" ? undefined : m.kind === "clear" ? "6 3" : "2 3"}
              ifOverflow="hidden"
              className={m.kind === "trip" || m.kind === "clear" ? `breaker-${m.kind}` : `mark-${m.kind}`}
              label={
                withLabel.has(m.id)
                  ? {
                      value: MARK_LABEL[m.kind],
                      position: withLabel.get(m.id),
                      fill: MARK_COLOUR[m.kind],
                      fontSize: 12,
                      fontWeight: 700,
                    }
                  : undefined
              }
            />
          ))}
          <Line type="stepAfter" dataKey="ours" name="ours" stroke="var(--c-ours)" strokeWidth={2} dot={dots} isAnimationActive={false} />
          <Line
            type="stepAfter"
            dataKey="theirs"
            name="theirs"
            stroke="var(--c-theirs)"
            strokeWidth={2}
            strokeDasharray="5 3"
            dot={dots}
            isAnimationActive={false}
          />
          <Tooltip content={PointTooltip} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
});
