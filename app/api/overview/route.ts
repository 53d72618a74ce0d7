import { forReader } from "@/lib/auth/actor-names";
import { readerSeesNames } from "@/lib/auth/reader";
import { journalJson } from "@/lib/http/journal-route";
import { getOverview } from "@/lib/queries/overview";

export async function GET() {
  const names = await readerSeesNames();
  return journalJson(({ db, config, now }) =>
    forReader(getOverview({
      db,
      now,
      heartbeatStaleMs: config.heartbeatStaleMs,
      reconciliationStaleMs: config.reconciliationStaleMs,
      doubtfulGraceMs: config.doubtfulGraceMs,
    }), names),
  );
}
