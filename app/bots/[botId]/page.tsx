import { readerSeesNames } from "@/lib/auth/reader";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { ClearHaltPanel } from "@/components/bot/clear-halt-panel";
import { BotJournalNotices } from "@/components/bot/bot-journal-notices";
import { CanActProvider } from "@/components/auth/can-act";
import { JournalUnavailable } from "@/components/journal/journal-unavailable";
import { canAct, getActor, signedInViewer } from "@/lib/auth/session";
import { botClearQuery } from "@/lib/query-options/bot-clear";
import { decodePageParam } from "@/lib/url-state/path-ids";
import { BOT_ID_MAX } from "@/lib/journal/ids";
import { readBotClear } from "@/lib/queries/screens";

export async function generateMetadata({ params }: { params: Promise<{ botId: string }> }): Promise<Metadata> {
  // Metadata gets its params decoded already: decoding again misread ids with a `%` and threw on `%E0`.
  return { title: `${(await params).botId.slice(0, 80)} · driftwatch` };
}

export default async function BotPage({ params }: { params: Promise<{ botId: string }> }) {
  await connection();
  const botId = decodePageParam((await params).botId).slice(0, BOT_ID_MAX);
  const names = await readerSeesNames();
  const read = await readBotClear({ names, botId });
  if (!read.ok) {
    return <JournalUnavailable error={read.error} source={read.source} />;
  }
  const view = read.data;
  // A 404, not a page that answers 200 for any id: app/bots/[botId]/not-found.tsx says what is missing.
  if (!view) notFound();
  const actor = await getActor();
  const operator = canAct(actor);
  const client = new QueryClient();
  client.setQueryData(botClearQuery(botId).queryKey, view);
  return (
    <HydrationBoundary state={dehydrate(client)}>
      {/* The card inside shows "Halt now" to operators: it reads canAct from this provider. */}
      <BotJournalNotices botId={botId} />
      <CanActProvider canAct={operator} viewer={signedInViewer(actor) !== null}>
        <ClearHaltPanel
          botId={botId}
          loadedBreakerVersion={view.bot.breaker?.version ?? null}
          loadedHalted={view.bot.breaker?.halted ?? false}
          canAct={operator}
          viewer={signedInViewer(actor)}
        />
      </CanActProvider>
    </HydrationBoundary>
  );
}
