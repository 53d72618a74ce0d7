import { readerSeesNames } from "@/lib/auth/reader";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import { connection } from "next/server";
import { DoubtfulLive } from "@/components/doubtful/doubtful-live";
import { JournalUnavailable } from "@/components/journal/journal-unavailable";
import { canAct, getActor, signedInViewer } from "@/lib/auth/session";
import { BOT_ID_MAX } from "@/lib/journal/ids";
import { doubtfulQuery } from "@/lib/query-options/doubtful";
import { readDoubtfulOrders } from "@/lib/queries/screens";

export const metadata: Metadata = { title: "Doubtful orders · driftwatch" };

export default async function DoubtfulPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await connection();
  const raw = (await searchParams).bot;
  const bot = typeof raw === "string" && raw.length > 0 ? raw.slice(0, BOT_ID_MAX) : null;
  const names = await readerSeesNames();
  const read = await readDoubtfulOrders({ names, botId: bot });
  if (!read.ok) {
    return <JournalUnavailable error={read.error} />;
  }
  const actor = await getActor();
  const client = new QueryClient();
  client.setQueryData(doubtfulQuery(bot).queryKey, read.data);
  return (
    <HydrationBoundary state={dehydrate(client)}>
      <DoubtfulLive bot={bot} canAct={canAct(actor)} viewer={signedInViewer(actor)} />
    </HydrationBoundary>
  );
}
