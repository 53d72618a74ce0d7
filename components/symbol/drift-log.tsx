import { UtcTime } from "@/components/ui/utc-time";
import type { DriftEpisode } from "@/lib/charts/downsample";
import type { BreakerMarker } from "@/lib/queries/symbol-chart";
import { visibleText } from "@/lib/text/visible-text";
import { DurationText } from "@/components/ui/duration-text";

const iso = (t: number) => new Date(t).toISOString();
const kindWords = { size_drift: "Size drift", unknown_position: "Unknown position" } as const;

/**
 * What the chart shades and marks, in words: readable without the picture, by keyboard and screen
 * reader, and exact where a shaded area is a few pixels wide.
 */
export function DriftLog({
  episodes,
  markers,
  moreMarkers,
  firstCycleAt = null,
}: {
  episodes: DriftEpisode[];
  markers: BreakerMarker[];
  moreMarkers: boolean;
  /** The window's first cycle drawn: a drift there may have begun before the window. */
  firstCycleAt?: number | null;
}) {
  const drifts = episodes.reduce((n, e) => n + e.merged, 0);
  return (
    <details className="text-sm" data-testid="drift-log">
      <summary className="cursor-pointer font-semibold focus-visible:outline-2">
        {drifts === 0 ? "No drift" : `${drifts} drift${drifts === 1 ? "" : "s"}`} and {markers.length}
        {moreMarkers ? "+" : ""} breaker change{markers.length === 1 ? "" : "s"} in this window
      </summary>
      <div className="mt-2 grid gap-4 sm:grid-cols-2">
        <div>
          <h3 className="font-semibold">Drifts</h3>
          {episodes.length === 0 ? (
            <p>The two books agreed at every cycle.</p>
          ) : (
            <ul className="mt-1 space-y-1">
              {episodes.map((e) => (
                <li key={`${e.kind}-${e.from}`} data-testid="drift-episode" data-kind={e.kind}>
                  <span
                    className={`font-semibold ${e.kind === "unknown_position" ? "text-red-800 dark:text-red-300" : "text-orange-800 dark:text-orange-300"}`}
                  >
                    {kindWords[e.kind]}
                  </span>{" "}
                  {/* "From 14:02:00" read as the drift's start when it was only the window's (a try-out). */}
                  {e.from === firstCycleAt ? (
                    <>
                      at the window&apos;s first cycle, <UtcTime iso={iso(e.from)} /> (it may have begun before),{" "}
                    </>
                  ) : (
                    <>
                      from <UtcTime iso={iso(e.from)} />{" "}
                    </>
                  )}
                  {e.ongoing ? (
                    "and still going"
                  ) : (
                    <>
                      for <DurationText ms={e.to - e.from} />
                    </>
                  )}
                  , {e.samples} cycle
                  {e.samples === 1 ? "" : "s"}
                  {e.merged > 1 && ` (${e.merged} drifts close together)`}
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h3 className="font-semibold">The bot&apos;s breaker (for all its symbols)</h3>
          {markers.length === 0 ? (
            <p>No trip or clear.</p>
          ) : (
            <ul className="mt-1 space-y-1">
              {markers.map((m) => (
                <li key={m.id} data-testid="breaker-marker" data-kind={m.kind}>
                  <span className={`font-semibold ${m.kind === "trip" ? "text-red-800 dark:text-red-300" : "text-emerald-800 dark:text-emerald-300"}`}>
                    {m.kind === "trip" ? "Trip" : "Clear"}
                  </span>{" "}
                  at <UtcTime iso={m.at} /> by {m.actor}: {visibleText(m.reason)}
                </li>
              ))}
              {moreMarkers && <li>More in this window; narrow it to see them all.</li>}
            </ul>
          )}
        </div>
      </div>
    </details>
  );
}
