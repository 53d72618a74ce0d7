import { UtcTime } from "@/components/ui/utc-time";
import type { PrunedHistory } from "@/lib/queries/pruned-history";

/**
 * Part of the window was pruned (npm run journal -- prune): say so, with the date, so a stretch
 * drawn from the rollups (or a timeline without cycles) never reads as a quiet market.
 */
export function PrunedNotice({ pruned, shows }: { pruned: PrunedHistory; shows: string }) {
  return (
    <div
      role="status"
      data-testid="pruned-notice"
      className="rounded border border-violet-600 bg-violet-50 p-3 text-sm text-violet-950 dark:bg-violet-950 dark:text-violet-50"
    >
      <p>
        The per-cycle detail before <UtcTime iso={pruned.horizon} /> was pruned on <UtcTime iso={pruned.prunedOn} /> (kept around every incident). {shows}
        {pruned.interrupted && " A prune was stopped before its end; the next run finishes it."}
      </p>
    </div>
  );
}
