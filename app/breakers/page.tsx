import { readerSeesNames } from "@/lib/auth/reader";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import { BreakersLive } from "@/components/breakers/breakers-live";
import { NoBots } from "@/components/bot/no-bots";
import { JournalUnavailable } from "@/components/journal/journal-unavailable";
import { parseBreakersView } from "@/lib/url-state/breakers";
import { breakersQuery } from "@/lib/query-options/breakers";
import { readBreakerBoard } from "@/lib/queries/screens";
import { CanActProvider } from "@/components/auth/can-act";
import { canAct, getActor, signedInViewer } from "@/lib/auth/session";

export const metadata: Metadata = { title: "Breakers · driftwatch" };

export default async function BreakersPage({ searchParams }: PageProps<"/breakers">) {
  await connection();
  const parsed = parseBreakersView(await searchParams);
  if (!parsed.ok) {
    return (
      <section role="alert" className="rounded-lg border-2 border-amber-600 bg-amber-50 p-4 text-amber-950 dark:bg-amber-950 dark:text-amber-50">
        <h1 className="text-xl font-bold">This breakers link is not valid</h1>
        <p className="mt-2 text-sm">{parsed.message}</p>
        <p className="mt-2 text-sm">
          <Link href="/breakers" className="font-semibold underline">
            Show every bot&apos;s breaker
          </Link>
        </p>
      </section>
    );
  }
  const { view } = parsed;
  const names = await readerSeesNames();
  const read = await readBreakerBoard({ names, bot: view.bot, before: view.before });
  if (!read.ok) {
    return <JournalUnavailable error={read.error} />;
  }
  const { data: board, journal } = read;
  if (board.bots.length === 0) {
    if (view.bot === null) return <NoBots file={journal.file} />;
    return (
      <section className="rounded-lg border border-dashed border-slate-400 p-6">
        <h1 className="text-xl font-bold">No bot named {view.bot}</h1>
        <p className="mt-2 text-sm">
          This journal has no bot or breaker row for <span className="break-all font-mono">{view.bot}</span>.{" "}
          <Link href="/breakers" className="font-semibold underline">
            Show every bot&apos;s breaker
          </Link>
        </p>
      </section>
    );
  }
  // The server's read seeds the client's cache, so the first paint is data, not a spinner.
  const client = new QueryClient();
  client.setQueryData(breakersQuery(view).queryKey, board);
  const actor = await getActor();
  return (
    <div className="space-y-4">
      <HydrationBoundary state={dehydrate(client)}>
        <CanActProvider canAct={canAct(actor)} viewer={signedInViewer(actor) !== null}>
          <BreakersLive view={view} />
        </CanActProvider>
      </HydrationBoundary>
    </div>
  );
}
