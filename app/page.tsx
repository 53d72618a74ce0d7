import { forReader } from "@/lib/auth/actor-names";
import { readerSeesNames } from "@/lib/auth/reader";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { connection } from "next/server";
import { NoBots } from "@/components/bot/no-bots";
import { JournalUnavailable } from "@/components/journal/journal-unavailable";
import { OverviewLive } from "@/components/overview/overview-live";
import { canAct, getActor } from "@/lib/auth/session";
import { readJournal } from "@/lib/db/console";
import { env } from "@/lib/env";
import { overviewQuery } from "@/lib/query-options/overview";
import { getOverview } from "@/lib/queries/overview";
import { JournalWarnings } from "@/components/journal/journal-warnings";

export default async function OverviewPage() {
  // Read the journal per request, never at build time.
  await connection();
  const config = env();
  const names = await readerSeesNames();
  const read = readJournal((j) =>
    forReader(getOverview({
      db: j.db,
      now: new Date(),
      heartbeatStaleMs: config.heartbeatStaleMs,
      reconciliationStaleMs: config.reconciliationStaleMs,
      doubtfulGraceMs: config.doubtfulGraceMs,
    }), names),
  );
  if (!read.ok) {
    return <JournalUnavailable error={read.error} />;
  }
  const { data: overview, journal } = read;
  if (overview.bots.length === 0) return <NoBots file={journal.info.file} />;

  // The server's read seeds the client's cache, so the first paint is data, not a spinner.
  const client = new QueryClient();
  client.setQueryData(overviewQuery().queryKey, overview);
  return (
    <div className="space-y-4">
      <JournalWarnings warnings={journal.warnings} />
      <HydrationBoundary state={dehydrate(client)}>
        <OverviewLive canAct={canAct(await getActor())} />
      </HydrationBoundary>
    </div>
  );
}
