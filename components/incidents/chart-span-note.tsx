import Link from "next/link";
import { UtcTime } from "@/components/ui/utc-time";
import { STORY_CHART_AFTER_MS, STORY_CHART_BEFORE_MS, wholeIncidentSpan, type IncidentStory, type StoryChartSpan } from "@/lib/incidents/story";
import { symbolPath } from "@/lib/query-options/symbol";
import { formatAge } from "@/lib/text/format";
import { MAX_CUSTOM_MS, rangeToQuery } from "@/lib/url-state/symbol";
import type { IncidentWindow } from "@/lib/url-state/incidents";

const minutes = (ms: number) => `${Math.round(ms / 60_000)} min`;

/**
 * Under the chart of a long incident: which span it shows (the hour around the trip, not the
 * whole), that the incident is still open when it is, and a link that charts the whole of it on
 * the symbol page (a custom window there, at most MAX_CUSTOM_MS from the story's start).
 */
export function ChartSpanNote({
  story,
  symbol,
  span,
  window,
  readAt,
}: {
  story: IncidentStory;
  symbol: string;
  span: StoryChartSpan;
  window: IncidentWindow;
  readAt: string;
}) {
  const all = wholeIncidentSpan(window, story.status === "open" ? readAt : null);
  const whole = rangeToQuery({ kind: "custom", from: all.from, to: all.to });
  const capped = all.capped;
  const lasted = formatAge(Math.max(0, Date.parse(story.clearedAt ?? readAt) - Date.parse(story.startedAt)));
  return (
    <p className="text-sm" data-testid="chart-span">
      The chart shows the trip and what led to it, not the whole incident: <UtcTime iso={span.from} className="font-mono" /> to{" "}
      <UtcTime iso={span.to} className="font-mono" />, from {minutes(STORY_CHART_BEFORE_MS)} before the trip to {minutes(STORY_CHART_AFTER_MS)} after it.{" "}
      {story.status === "open" ? (
        <strong data-testid="chart-span-open">
          The incident is still open, <span className="whitespace-nowrap">{lasted}</span> so far.
        </strong>
      ) : (
        <>
          The incident lasted <span className="whitespace-nowrap">{lasted}</span>, cleared <UtcTime iso={story.clearedAt!} className="font-mono" />.
        </>
      )}{" "}
      <Link href={`${symbolPath(story.botId, symbol)}${whole}`} className="font-semibold underline" data-testid="chart-whole">
        {capped ? `Chart its first ${formatAge(MAX_CUSTOM_MS)}` : "Chart the whole incident"}
      </Link>
      .
    </p>
  );
}
