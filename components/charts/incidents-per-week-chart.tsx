"use client";
import { Bar, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { valueTicks } from "@/lib/charts/value-ticks";
import { formatUtcDay } from "@/lib/text/format";

export interface IncidentWeekPoint {
  /** Monday of the week, `2026-08-10`. */
  week: string;
  incidents: number;
  /** Median time to clear, minutes; null when none of the week's incidents was cleared. */
  medianMinutes: number | null;
}

const theme =
  "[--c-bar:#b91c1c] [--c-line:#0369a1] [--c-grid:#cbd5e1] [--c-axis:#475569] dark:[--c-bar:#fca5a5] dark:[--c-line:#7dd3fc] dark:[--c-grid:#334155] dark:[--c-axis:#cbd5e1]";

const tick = { fill: "var(--c-axis)", fontSize: 12 };
const axisTitle = (value: string, side: "left" | "right") => ({
  value,
  angle: side === "left" ? -90 : 90,
  position: side === "left" ? ("insideLeft" as const) : ("insideRight" as const),
  style: { textAnchor: "middle" as const, fill: "var(--c-axis)", fontSize: 12 },
});

/**
 * Incidents per week (bars, left axis) and their median time to clear in minutes (line, right axis). Plain props.
 * Both axes carry their title and their own ticks: left to recharts, a week with no cleared incident
 * (one bot, halted still) gave the minutes axis no value to scale, and it showed nothing at all.
 */
export function IncidentsPerWeekChart({ weeks, label }: { weeks: IncidentWeekPoint[]; label: string }) {
  const medians = weeks.map((w) => w.medianMinutes).filter((m): m is number => m !== null);
  // With no median yet (no incident cleared), a scale of a few minutes to read the line against once one comes.
  const minuteTicks = valueTicks(0, Math.max(0, ...medians) || 5);
  const counts = Math.max(1, ...weeks.map((w) => w.incidents));
  return (
    <div className={`${theme} w-full min-w-0`} role="img" aria-label={label} data-testid="incidents-per-week">
      <ResponsiveContainer width="100%" height={180} minWidth={0} initialDimension={{ width: 320, height: 180 }}>
        <ComposedChart data={weeks} margin={{ top: 8, right: 4, bottom: 4, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid stroke="var(--c-grid)" strokeDasharray="3 3" />
          {/* preserveStartEnd: recharts' default keeps the last week's label and thins the rest from
              there, which on a phone dropped the first bar's label whenever every other week was shown. */}
          <XAxis dataKey="week" stroke="var(--c-axis)" tick={tick} tickFormatter={(w: string) => formatUtcDay(w)} interval="preserveStartEnd" />
          <YAxis yAxisId="n" allowDecimals={false} domain={[0, counts]} width={48} stroke="var(--c-axis)" tick={tick} label={axisTitle("incidents", "left")} />
          <YAxis
            yAxisId="min"
            orientation="right"
            domain={[0, minuteTicks.at(-1) ?? 1]}
            // Keeps the domain given even when no value is bound to the axis (else recharts draws no tick).
            allowDataOverflow
            ticks={minuteTicks}
            width={64}
            stroke="var(--c-axis)"
            tick={tick}
            // " min", not "m": "1.5m" read as a million or metres in a try-out.
            unit=" min"
            label={axisTitle("median to clear", "right")}
          />
          <Bar yAxisId="n" dataKey="incidents" name="incidents" fill="var(--c-bar)" maxBarSize={48} isAnimationActive={false} />
          <Line
            yAxisId="min"
            dataKey="medianMinutes"
            name="median minutes to clear"
            stroke="var(--c-line)"
            strokeWidth={2}
            connectNulls
            isAnimationActive={false}
          />
          <Tooltip isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
