"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { PositionChart } from "@/components/charts/position-chart";
import { JournalProblem } from "@/components/journal/journal-problem";
import { JournalProblemShown, NotCurrentShown } from "@/components/journal/journal-problem-shown";
import { JournalWarnings } from "@/components/journal/journal-warnings";
import { AlarmBanner } from "@/components/live/alarm-banner";
import { LiveStatus } from "@/components/live/live-status";
import { useLiveUpdatedAt } from "@/components/live/use-live-updated-at";
import { useNow } from "@/components/live/use-now";
import { StatusBadge } from "@/components/ui/status-badge";
import { UtcTime } from "@/components/ui/utc-time";
import { factsAreOld } from "@/lib/breaker/bot-status";
import { changedByOperator } from "@/lib/breaker/halt-cause";
import { sameUtcDay } from "@/lib/text/format";
import { asLiveReadError, liveFailureTitle, problemText, type LiveReadError } from "@/lib/query-options/fetch-api";
import { symbolChartQuery, symbolPath, symbolStateQuery } from "@/lib/query-options/symbol";
import { MAX_ORDERS, ORDERS_PAGE, type SymbolRange } from "@/lib/url-state/symbol";
import { BookLine } from "./book-line";
import { ChartLegend } from "./chart-legend";
import { DriftLog } from "./drift-log";
import { HistoryNotice } from "./history-notice";
import { PrunedNotice } from "@/components/retention/pruned-notice";
import { OrderList } from "./order-list";
import { RangePicker } from "./range-picker";
import { SymbolNotFound } from "./symbol-not-found";
import { useHydrated } from "@/components/live/use-hydrated";
import { useNotCurrent } from "@/components/live/use-not-current";
import { notUpdatedWords } from "@/lib/live/not-current";
import { haltCauseText } from "@/lib/breaker/halt-cause";
import { visibleText } from "@/lib/text/visible-text";
import { TAP_TARGET } from "@/components/ui/tap-target";

const JOURNAL_CODES = new Set(["missing", "not_a_file", "not_sqlite", "no_schema", "older_schema", "future_schema", "unreadable", "gone", "locked", "corrupt"]);

const asLiveError = asLiveReadError;

/**
 * Screen 2: one bot's book against the exchange's for one symbol, over a range, with that symbol's
 * orders. `range` is null when the URL's range was invalid (`rangeError` says why): the rest of the
 * page still works.
 */
export function SymbolLive({ botId, symbol, range, rangeError }: { botId: string; symbol: string; range: SymbolRange | null; rangeError: string | null }) {
  const [ordersLimit, setOrdersLimit] = useState(ORDERS_PAGE);
  const stateOptions = symbolStateQuery({ botId, symbol, ordersLimit });
  const state = useQuery(stateOptions);
  const stateUpdatedAt = useLiveUpdatedAt(stateOptions, state.dataUpdatedAt);
  const chart = useQuery({ ...symbolChartQuery({ botId, symbol, range: range ?? { kind: "15m" } }), enabled: range !== null });
  const now = useNow();
  const hydrated = useHydrated();
  // One array per answer, not per render: the chart is drawn again only when its props change.
  const chartMarkers = chart.data?.markers;
  const markers = useMemo(
    () => (chartMarkers ?? []).map((m) => ({ id: m.id, t: Date.parse(m.at), kind: m.kind, reason: visibleText(m.reason) })),
    [chartMarkers],
  );
  const path = symbolPath(botId, symbol);

  const data = state.data;
  const stateError = asLiveError(state.error);
  const chartError = range ? asLiveError(chart.error) : null;
  const error = stateError ?? chartError;
  const chartLive = chart.data?.window.live ?? false;
  const ages = [stateUpdatedAt, ...(chartLive ? [chart.dataUpdatedAt] : [])].filter((t) => t > 0);
  const updatedAt = ages.length ? Math.min(...ages) : 0;
  const { notCurrent: tooOld, ageMs } = useNotCurrent(updatedAt);
  const unsure = error !== null || tooOld;

  if (!data) {
    if (stateError && JOURNAL_CODES.has(stateError.code)) {
      return (
        <JournalProblem
          error={{ code: stateError.code as never, file: "", problem: stateError.message, fix: stateError.fix ?? "", message: stateError.message }}
        />
      );
    }
    return <AlarmBanner title="No data yet" causes={[stateError ? stateError.message : "loading the journal…"]} fix={stateError?.fix} />;
  }
  if (!data.found) return <SymbolNotFound {...data} />;

  // The problem once, without its fix (said below): the book's read and the chart's meet the same
  // journal, and each said the problem and its fix, with the fix a third time under them.
  const said = (e: LiveReadError) => (e.kind === "journal" ? problemText(e) : e.message);
  const causes: string[] = [];
  if (stateError && chartError && said(stateError) === said(chartError)) causes.push(`cannot read the book, orders and chart right now: ${said(stateError)}`);
  else {
    if (stateError) causes.push(`cannot read the book and orders right now: ${said(stateError)}`);
    if (chartError) causes.push(`cannot read the chart right now: ${said(chartError)}`);
  }
  if (!error && tooOld) causes.push(notUpdatedWords(ageMs));
  const halted = data.bot.breaker?.halted ?? false;
  // UNKNOWN, as the bot card says it: the page's answers stopped, not (as far as anyone knows) the bot.
  const status = unsure && data.bot.status === "running" ? "unknown" : data.bot.status;
  const c = range ? chart.data : undefined;
  const from = c ? Date.parse(c.window.from) : 0;
  const to = c ? Date.parse(c.window.to) : 0;
  const trips = c?.markers.filter((m) => m.kind === "trip").length ?? 0;
  const drifts = c?.episodes.reduce((n, e) => n + e.merged, 0) ?? 0;

  return (
    <div className="space-y-5">
      <JournalWarnings warnings={data.notices ?? []} failing={!!stateError} />
      <JournalProblemShown error={state.error} />
      <nav aria-label="Breadcrumb" className="text-sm">
        <ol className="flex flex-wrap gap-1">
          <li>
            <Link href="/" className={`underline ${TAP_TARGET}`}>
              Overview
            </Link>{" "}
            /
          </li>
          <li className="break-all">
            <Link href={`/bots/${encodeURIComponent(botId)}`} className={`font-mono underline ${TAP_TARGET}`}>
              {botId}
            </Link>{" "}
            /
          </li>
          <li aria-current="page" className="break-all font-mono">
            {symbol}
          </li>
        </ol>
      </nav>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="flex flex-wrap items-center gap-x-3 gap-y-1 text-2xl font-bold">
          <span className="break-all font-mono">{symbol}</span>
          <span className="text-base font-normal text-slate-600 dark:text-slate-300">
            on <span className="break-all font-mono">{botId}</span>
          </span>
          <StatusBadge status={status} also={data.bot.haltedAlso} />
        </h1>
        {hydrated ? <LiveStatus updatedAt={updatedAt} failing={unsure} /> : <p className="text-sm text-slate-600 dark:text-slate-300">connecting…</p>}
      </div>
      <NotCurrentShown when={causes.length > 0} />
      <AlarmBanner
        title={error ? liveFailureTitle(error) : "This page is not current"}
        causes={causes}
        fix={error?.fix ? `Fix: ${error.fix}` : causes.length ? "Until this clears, treat the book and orders below as unverified." : undefined}
      />
      {halted && data.bot.breaker && (
        <p className="rounded border-2 border-red-700 bg-red-50 p-3 text-sm text-red-950 dark:bg-red-950 dark:text-red-50" data-testid="halt-reason">
          <strong>{botId} is halted:</strong>{" "}
          {visibleText(
            haltCauseText({
              reason: data.bot.breaker.reason,
              inSyncSince: data.bot.breaker.causeInSyncSince,
              ordersSettled: data.bot.breaker.causeOrdersSettled,
              changedBy: data.bot.breaker.changedBy,
              changedAt: data.bot.breaker.changedAt,
            }),
          )}
          .{/* A hand-made halt already says who and when; a trip's cause may say "in sync since", so its own time is a sentence apart. */}
          {!changedByOperator(data.bot.breaker.changedBy) && (
            <>
              {" "}
              Halted at <UtcTime iso={data.bot.breaker.changedAt} /> by {data.bot.breaker.changedBy}.
            </>
          )}
        </p>
      )}
      <BookLine line={data.line} symbol={data.symbol} unsure={unsure} botOld={factsAreOld(data.bot)} receivedAt={state.dataUpdatedAt} />

      <section
        aria-labelledby="chart-title"
        className="space-y-3 rounded-lg border border-slate-200 bg-white p-3 sm:p-4 dark:border-slate-700 dark:bg-slate-900"
      >
        <h2 id="chart-title" className="text-xl font-bold">
          Ours against theirs
        </h2>
        <RangePicker path={path} range={range} window={c?.window ?? null} />
        {rangeError !== null && (
          <div
            role="alert"
            data-testid="range-error"
            className="rounded border-2 border-amber-600 bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50"
          >
            <p className="font-semibold">This range cannot be shown: {rangeError}.</p>
            <p>
              Pick a range above, or{" "}
              <Link href={path} className="underline">
                show the last 15 min
              </Link>
              .
            </p>
          </div>
        )}
        {range && c?.notice && <HistoryNotice notice={c.notice} range={range} path={path} now={hydrated ? now : null} />}
        {c?.pruned && <PrunedNotice pruned={c.pruned} chart />}
        {range && !c && !chartError && <p className="text-sm">Loading the chart…</p>}
        {c && (
          <>
            <p className="text-sm text-slate-700 dark:text-slate-200" data-testid="chart-window">
              <UtcTime iso={c.window.from} /> to <UtcTime iso={c.window.to} withDate={!sameUtcDay(c.window.from, c.window.to)} /> ·{" "}
              {c.samples.toLocaleString("en-US")} cycle{c.samples === 1 ? "" : "s"}
              {c.bucketMs !== null && `, drawn as ${c.points.length.toLocaleString("en-US")} points`}
              {!c.window.live && " · history, not polled"}
            </p>
            {c.points.length === 0 ? (
              <p className="rounded border border-dashed border-slate-400 p-4 text-sm" data-testid="chart-empty">
                No compared reconciliation of this bot in this window.
              </p>
            ) : !hydrated ? (
              // The chart measures its container, which only the browser can do: keep its place meanwhile.
              <div className="h-[300px] w-full animate-pulse rounded bg-slate-100 dark:bg-slate-800" aria-hidden />
            ) : (
              <PositionChart
                points={c.points}
                episodes={c.episodes}
                markers={markers}
                from={from}
                to={to}
                bucketMs={c.bucketMs}
                prunedSpans={c.pruned?.spans}
                label={`${symbol} on ${botId}: the bot's position against the exchange's over the window, ${drifts} drift${drifts === 1 ? "" : "s"} shaded, ${trips} breaker trip${trips === 1 ? "" : "s"} marked. The list below the chart gives each in words.`}
              />
            )}
            <ChartLegend />
            <DriftLog episodes={c.episodes} markers={c.markers} moreMarkers={c.moreMarkers} firstCycleAt={c.points[0]?.t ?? null} />
          </>
        )}
      </section>

      <section aria-labelledby="orders-title" className="space-y-3">
        <h2 id="orders-title" className="text-xl font-bold">
          Orders on <span className="font-mono">{symbol}</span>
        </h2>
        <OrderList
          orders={data.orders}
          more={data.moreOrders && ordersLimit < MAX_ORDERS}
          loadingMore={state.isPlaceholderData}
          onMore={() => setOrdersLimit((n) => Math.min(MAX_ORDERS, n + ORDERS_PAGE))}
        />
        {data.moreOrders && ordersLimit >= MAX_ORDERS && (
          <p className="text-sm">Showing the newest {MAX_ORDERS}. The incident review shows older ones by time window.</p>
        )}
      </section>
    </div>
  );
}
