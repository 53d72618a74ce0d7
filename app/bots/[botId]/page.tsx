import { forReader } from "@/lib/actor-names";
import { readerSeesNames } from "@/lib/auth/reader";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import { ClearHaltPanel } from "@/components/bot/clear-halt-panel";
import { JournalUnavailable } from "@/components/journal/journal-unavailable";
import { canAct, getActor } from "@/lib/auth/session";
import { readJournal } from "@/lib/db/console";
import { env } from "@/lib/env";
import { botClearQuery } from "@/lib/live/queries";
import { decodePageParam } from "@/lib/path-ids";
import { getBotClearView } from "@/lib/queries/bot-clear";

export async function generateMetadata({ params }: { params: Promise<{ botId: string }> }): Promise<Metadata> {
  // Metadata gets its params decoded already: decoding again misread ids with a `%` and threw on `%E0`.
  return { title: `${(await params).botId.slice(0, 80)} · driftwatch` };
}

export default async function BotPage({ params }: { params: Promise<{ botId: string }> }) {
  await connection();
  const botId = decodePageParam((await params).botId).slice(0, 200);
  const names = await readerSeesNames();
  const read = readJournal((j) => forReader(getBotClearView({ db: j.db, sqlite: j.sqlite, botId, now: new Date(), ...env() }), names));
  if (!read.ok) {
    return <JournalUnavailable error={read.error} />;
  }
  const view = read.data;
  if (!view) {
    return (
      <section className="space-y-2">
        <h1 className="text-xl font-bold">No bot {botId}</h1>
        <p>
          This journal has no bot by that id. <Link href="/" className="underline">Back to the bots</Link>.
        </p>
      </section>
    );
  }
  const client = new QueryClient();
  client.setQueryData(botClearQuery(botId).queryKey, view);
  return (
    <HydrationBoundary state={dehydrate(client)}>
      <ClearHaltPanel botId={botId} loadedBreakerVersion={view.bot.breaker?.version ?? null} canAct={canAct(await getActor())} />
    </HydrationBoundary>
  );
}
