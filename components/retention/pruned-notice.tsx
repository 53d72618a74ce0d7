import { UtcTime } from "@/components/ui/utc-time";
import type { PrunedHistory } from "@/lib/queries/pruned-history";

/**
 * Part of the window was pruned (npm run journal -- prune): say so, with the dates, so a stretch
 * drawn from the rollups (or a timeline without cycles, an incident without its cycles, a stretch
 * without its settled orders) never reads as a quiet market.
 */
export function PrunedNotice({ pruned, shows }: { pruned: PrunedHistory; shows: string }) {
  return (
    <div
      role="status"
      data-testid="pruned-notice"
      className="rounded border border-violet-600 bg-violet-50 p-3 text-sm text-violet-950 dark:bg-violet-950 dark:text-violet-50"
    >
      {pruned.spans.length > 0 && (
        <p>
          The per-cycle detail before <UtcTime iso={pruned.horizon} /> was pruned on <UtcTime iso={pruned.prunedOn} /> (
          {pruned.incidentHorizon === null ? (
            "kept around every incident"
          ) : (
            <>
              kept around every incident that ended after <UtcTime iso={pruned.incidentHorizon} />
            </>
          )}
          ). {shows}
        </p>
      )}
      {pruned.incidentPruned && (
        <p data-testid="pruned-incident">
          An incident in this window ended before <UtcTime iso={pruned.incidentPruned.before} />: its per-cycle detail was pruned on{" "}
          <UtcTime iso={pruned.incidentPruned.on} />. Its trip and clear are kept; its cycles are not.
        </p>
      )}
      {pruned.hourly && (
        <p data-testid="pruned-hourly">
          Before <UtcTime iso={pruned.hourly.before} /> the five-minute detail was pruned on <UtcTime iso={pruned.hourly.on} />: the rollups there are hourly,
          each hour&apos;s extremes and drifts, not each five minutes&apos;.
        </p>
      )}
      {pruned.orders && (
        <p data-testid="pruned-orders">
          Settled orders last updated before <UtcTime iso={pruned.orders.before} /> were pruned on <UtcTime iso={pruned.orders.on} /> with their events; orders
          still in doubt are never pruned.
        </p>
      )}
      {pruned.interrupted && <p>A prune was stopped before its end; the next run finishes it.</p>}
    </div>
  );
}
