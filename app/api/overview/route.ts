import { journalJson } from "@/lib/http/journal-route";
import { getOverview } from "@/lib/queries/overview";

export function GET() {
  return journalJson(({ db, config, now }) =>
    getOverview({
      db,
      now,
      heartbeatStaleMs: config.heartbeatStaleMs,
      reconciliationStaleMs: config.reconciliationStaleMs,
      doubtfulGraceMs: config.doubtfulGraceMs,
    }),
  );
}
