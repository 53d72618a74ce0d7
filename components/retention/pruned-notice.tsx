import { UtcTime } from "@/components/ui/utc-time";
import type { PrunedHistory } from "@/lib/queries/pruned-history";
import { formatUtcDate } from "@/lib/text/format";

/** A time with its date always said ("2 Dec 2026 at 02:35 UTC"): the notice outlives the day it was drawn. */
const Day = ({ iso }: { iso: string }) => <UtcTime iso={iso}>{formatUtcDate(iso)}</UtcTime>;

/**
 * Part of the window was pruned (npm run journal -- prune): say so, with the dates, so a stretch
 * drawn from the rollups (or a timeline without cycles, an incident without its cycles, a stretch
 * without its settled orders) never reads as a quiet market. Two sentences at most, the first what
 * is missing and since when, the second what is shown instead: it must read on a phone.
 *
 * `shows` is the page's own second sentence; `chart` instead lets the notice say which rollups the
 * chart draws there (five-minute or hourly), which only it knows from the horizons.
 */
export function PrunedNotice({ pruned, shows, chart = false }: { pruned: PrunedHistory; shows?: string; chart?: boolean }) {
  const { hourly, orders, incidentPruned: lost } = pruned;
  // A later horizon's date is said only when it was another prune's.
  const on = (iso: string) =>
    pruned.spans.length > 0 && iso === pruned.prunedOn ? null : (
      <>
        {" "}
        on <Day iso={iso} />
      </>
    );
  const rollups = hourly ? (
    <span data-testid="pruned-hourly">
      {pruned.spans.length === 0 ? (
        <>
          Five-minute rollups before <Day iso={hourly.before} /> were folded into hourly ones{on(hourly.on)}
        </>
      ) : chart && hourly.whole ? (
        <>
          The chart draws hourly rollups there
          {hourly.on === pruned.prunedOn ? null : (
            <>
              {" "}
              (folded on <Day iso={hourly.on} />)
            </>
          )}
          , not every cycle
        </>
      ) : chart ? (
        <>
          The chart draws the five-minute rollups there, hourly ones before <Day iso={hourly.before} />
        </>
      ) : (
        <>
          Rollups before <Day iso={hourly.before} /> are hourly{on(hourly.on)}
        </>
      )}
    </span>
  ) : chart && pruned.spans.length > 0 ? (
    "The chart draws the five-minute rollups there, not every cycle"
  ) : null;
  const ordersClause = (first: boolean) =>
    orders && (
      <span data-testid="pruned-orders">
        {first ? "Settled" : "settled"} orders before <Day iso={orders.before} /> were pruned{on(orders.on)} too
      </span>
    );
  return (
    <div
      role="status"
      data-testid="pruned-notice"
      className="rounded border border-violet-600 bg-violet-50 p-3 text-sm text-violet-950 dark:bg-violet-950 dark:text-violet-50"
    >
      <p>
        {pruned.spans.length > 0 && (
          <>
            Per-cycle detail before <Day iso={pruned.horizon} /> was pruned on <Day iso={pruned.prunedOn} />
            {pruned.incidentHorizon === null ? (
              ", except around incidents"
            ) : lost ? (
              <span data-testid="pruned-incident">
                ; {lost.count === 1 ? "this window's incident" : `the ${lost.count} incidents in this window`} ended before <Day iso={lost.before} />, so{" "}
                {lost.count === 1 ? "its cycles" : "theirs"} went too
              </span>
            ) : (
              <>
                , except around incidents that ended after <Day iso={pruned.incidentHorizon} />
              </>
            )}
            .{" "}
          </>
        )}
        {!chart && shows && `${shows} `}
        {rollups}
        {rollups && orders && "; "}
        {ordersClause(!rollups)}
        {(rollups || orders) && "."}
        {pruned.interrupted && " A prune was stopped midway; the next run finishes it."}
      </p>
    </div>
  );
}
