"use client";
import { Bar, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface IncidentWeekPoint {
  /** Monday of the week, `2026-08-10`. */
  week: string;
  incidents: number;
  /** Median time to clear, minutes; null when none of the week's incidents was cleared. */
  medianMinutes: number | null;
}

const theme =
  "[--c-bar:#b91c1c] [--c-line:#0369a1] [--c-grid:#cbd5e1] [--c-axis:#475569] dark:[--c-bar:#fca5a5] dark:[--c-line:#7dd3fc] dark:[--c-grid:#334155] dark:[--c-axis:#cbd5e1]";

/** Incidents per week (bars, left axis) and their median time to clear in minutes (line, right axis). Plain props. */
export function IncidentsPerWeekChart({ weeks, label }: { weeks: IncidentWeekPoint[]; label: string }) {
  return (
    <div className={`${theme} w-full min-w-0`} role="img" aria-label={label} data-testid="incidents-per-week">
      <ResponsiveContainer width="100%" height={180} minWidth={0} initialDimension={{ width: 320, height: 180 }}>
        <ComposedChart data={weeks} margin={{ top: 8, right: 4, bottom: 4, left: 0 }} accessibilityLayer={false}>
          <CartesianGrid stroke="var(--c-grid)" strokeDasharray="3 3" />
          <XAxis dataKey="week" stroke="var(--c-axis)" tick={{ fill: "var(--c-axis)", fontSize: 12 }} tickFormatter={(w: string) => w.slice(5)} />
          <YAxis yAxisId="n" allowDecimals={false} width={32} stroke="var(--c-axis)" tick={{ fill: "var(--c-axis)", fontSize: 12 }} />
          <YAxis yAxisId="min" orientation="right" width={40} stroke="var(--c-axis)" tick={{ fill: "var(--c-axis)", fontSize: 12 }} unit="m" />
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
