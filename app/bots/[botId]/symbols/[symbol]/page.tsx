import { readerSeesNames } from "@/lib/auth/reader";
import { dehydrate, HydrationBoundary, QueryClient } from "@tanstack/react-query";
import type { Metadata } from "next";
import { connection } from "next/server";
import { JournalUnavailable } from "@/components/journal/journal-unavailable";
import { SymbolLive } from "@/components/symbol/symbol-live";
import { SymbolNotFound } from "@/components/symbol/symbol-not-found";
import { symbolChartQuery, symbolStateQuery } from "@/lib/query-options/symbol";
import { decodePageParam } from "@/lib/url-state/path-ids";
import { anyEngine, readBotScreen } from "@/lib/queries/read";
import { loadSymbolChart, loadSymbolState } from "@/lib/queries/screens";
import { ORDERS_PAGE, parseSymbolRange } from "@/lib/url-state/symbol";

export async function generateMetadata(props: PageProps<"/bots/[botId]/symbols/[symbol]">): Promise<Metadata> {
  const { botId, symbol } = await props.params;
  return { title: `${symbol.slice(0, 40)} on ${botId.slice(0, 80)} · driftwatch` };
}

export default async function SymbolPage(props: PageProps<"/bots/[botId]/symbols/[symbol]">) {
  // Read the journal per request, never at build time.
  await connection();
  const params = await props.params;
  const botId = decodePageParam(params.botId);
  const symbol = decodePageParam(params.symbol);
  const parsed = parseSymbolRange(await props.searchParams);
  const range = parsed.ok ? parsed.range : null;
  const names = await readerSeesNames();
  // The same loaders as the two polling routes, on one clock: the chart only for a symbol that exists.
  const read = await readBotScreen(
    botId,
    anyEngine(async (ctx) => {
      const state = await loadSymbolState({ ...ctx, names, botId, symbol, ordersLimit: ORDERS_PAGE });
      const chart = state.found && range ? await loadSymbolChart({ ...ctx, names, botId, symbol, range }) : null;
      return { state, chart };
    }),
  );
  if (!read.ok) {
    return <JournalUnavailable error={read.error} source={read.source} />;
  }
  const {
    data: { state, chart },
    journal,
  } = read;
  if (!state.found) return <SymbolNotFound {...state} />;

  // The server's reads seed the client's cache, so the first paint is data, not a spinner.
  const client = new QueryClient();
  // With the journal's notices, as the live view carries them (SymbolLive shows them).
  client.setQueryData(symbolStateQuery({ botId, symbol, ordersLimit: ORDERS_PAGE }).queryKey, { ...state, notices: journal.warnings });
  if (range && chart) client.setQueryData(symbolChartQuery({ botId, symbol, range }).queryKey, chart);
  return (
    <div className="space-y-4">
      <HydrationBoundary state={dehydrate(client)}>
        <SymbolLive botId={botId} symbol={symbol} range={range} rangeError={parsed.ok ? null : parsed.message} />
      </HydrationBoundary>
    </div>
  );
}
