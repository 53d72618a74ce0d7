import { readerSeesNames } from "@/lib/auth/reader";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import { connection } from "next/server";
import { NoBots } from "@/components/bot/no-bots";
import { JournalUnavailable } from "@/components/journal/journal-unavailable";
import { OverviewLive } from "@/components/overview/overview-live";
import { canAct, getActor, signedInViewer } from "@/lib/auth/session";
import { overviewQuery } from "@/lib/query-options/overview";
import { readOverview } from "@/lib/queries/screens";
import { DeskNotifyToggle } from "@/components/live/desk-notify-toggle";

export default async function OverviewPage() {
  // Read the journal per request, never at build time.
  await connection();
  const names = await readerSeesNames();
  const read = await readOverview({ names });
  if (!read.ok) {
    return <JournalUnavailable error={read.error} />;
  }
  const { data: overview, journal } = read;
  // With several journals, one that cannot be read is a banner to show, not "no bots yet".
  if (overview.bots.length === 0 && !overview.sources?.some((s) => !s.ok)) return <NoBots file={journal.file} />;

  // The server's read seeds the client's cache, so the first paint is data, not a spinner.
  const client = new QueryClient();
  client.setQueryData(overviewQuery().queryKey, overview);
  const actor = await getActor();
  return (
    <div className="space-y-4">
      {/* The journal's notices are in the overview's data (OverviewLive shows them), so they stay current. */}
      <HydrationBoundary state={dehydrate(client)}>
        <OverviewLive canAct={canAct(actor)} viewer={signedInViewer(actor) !== null} />
      </HydrationBoundary>
      <DeskNotifyToggle />
    </div>
  );
}
