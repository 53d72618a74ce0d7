import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { connection } from "next/server";
import { Suspense } from "react";
import { NoBots } from "@/components/bots/no-bots";
import { JournalProblem } from "@/components/journal/journal-problem";
import { RetryWhenReadable } from "@/components/journal/retry-when-readable";
import { OverviewLive } from "@/components/overview/overview-live";
import { canAct, getActor } from "@/lib/auth/session";
import { getJournal } from "@/lib/db/console";
import { env } from "@/lib/env";
import { overviewQuery } from "@/lib/live/queries";
import { getOverview } from "@/lib/queries/overview";

export default async function OverviewPage() {
  // Read the journal per request, never at build time.
  await connection();
  const journal = getJournal();
  if (!journal.ok) {
    return (
      <>
        <JournalProblem error={journal.error} />
        <RetryWhenReadable />
      </>
    );
  }
  const config = env();
  const overview = getOverview({
    db: journal.db,
    now: new Date(),
    heartbeatStaleMs: config.heartbeatStaleMs,
    reconciliationStaleMs: config.reconciliationStaleMs,
    doubtfulGraceMs: config.doubtfulGraceMs,
  });
  if (overview.bots.length === 0) return <NoBots file={journal.info.file} />;

  // The server's read seeds the client's cache, so the first paint is data, not a spinner.
  const client = new QueryClient();
  client.setQueryData(overviewQuery().queryKey, overview);
  return (
    <div className="space-y-4">
      {journal.warnings.map((w) => (
        <p key={w} role="alert" className="rounded border border-amber-500 bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50">
          {w}
        </p>
      ))}
      <HydrationBoundary state={dehydrate(client)}>
        <Suspense>
          <OverviewLive canAct={canAct(await getActor())} />
        </Suspense>
      </HydrationBoundary>
    </div>
  );
}
