"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { BotCard } from "@/components/bot/bot-card";
import { CanActProvider } from "@/components/auth/can-act";
import { JournalProblem } from "@/components/journal/journal-problem";
import { SourceProblems } from "@/components/journal/source-problems";
import { JournalWarnings } from "@/components/journal/journal-warnings";
import { AlarmBanner } from "@/components/live/alarm-banner";
import { LastKnownHalt } from "@/components/live/last-known-halt";
import { bannerHalts } from "@/lib/live/halt-signal";
import { factsAreOld } from "@/lib/breaker/bot-status";
import { LiveStatus } from "@/components/live/live-status";
import { useLiveUpdatedAt } from "@/components/live/use-live-updated-at";
import { useNotCurrent } from "@/components/live/use-not-current";
import { notUpdatedWords } from "@/lib/live/not-current";
import { asLiveReadError, liveFailureTitle, problemText } from "@/lib/query-options/fetch-api";
import { overviewQuery } from "@/lib/query-options/overview";
import { SORTS, applyOverviewView, orderBotsForOverview, parseOverviewView, viewToQuery, type OverviewView } from "@/lib/url-state/overview";
import { SymbolTable } from "./symbol-table";

const JOURNAL_CODES = new Set(["missing", "not_a_file", "not_sqlite", "no_schema", "older_schema", "future_schema", "unreadable", "gone", "locked", "corrupt"]);

const sortLabels: Record<(typeof SORTS)[number], string> = {
  severity: "severity",
  symbol: "symbol",
  bot: "bot",
  notional: "notional",
  age: "drifting longest",
};

export function OverviewLive({ canAct, viewer = false }: { canAct: boolean; viewer?: boolean }) {
  const options = overviewQuery();
  const query = useQuery(options);
  const updatedAt = useLiveUpdatedAt(options, query.dataUpdatedAt);
  const { notCurrent: tooOld, ageMs } = useNotCurrent(updatedAt);
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const paramsText = params.toString();
  // The controls answer at once; the URL follows, so the view can be shared and survives a reload.
  const [view, setLocalView] = useState(() => parseOverviewView(new URLSearchParams(paramsText)));
  const [seenParams, setSeenParams] = useState(paramsText);
  if (seenParams !== paramsText) {
    // Back/forward changed the URL: the URL wins.
    setSeenParams(paramsText);
    setLocalView(parseOverviewView(new URLSearchParams(paramsText)));
  }
  const setView = (patch: Partial<OverviewView>) => {
    const next = { ...view, ...patch };
    setLocalView(next);
    router.replace(`${pathname}${viewToQuery(next)}`, { scroll: false });
  };

  const data = query.data;
  const error = asLiveReadError(query.error);
  const unsure = error !== null || tooOld;

  if (!data) {
    if (error && JOURNAL_CODES.has(error.code)) {
      return <JournalProblem error={{ code: error.code as never, file: "", problem: error.message, fix: error.fix ?? "", message: error.message }} />;
    }
    return <AlarmBanner title="No data yet" causes={[error ? error.message : "loading the journal…"]} fix={error?.fix} />;
  }

  const causes = [...data.alarms];
  // The title says the console cannot read the journal right now, and the fix is its own line: the cause is the problem alone.
  if (error) causes.unshift(error.kind === "journal" ? problemText(error) : `cannot read right now: ${error.message}`);
  else if (tooOld) causes.unshift(notUpdatedWords(ageMs));
  const halted = bannerHalts(data.bots);
  const drifting = data.lines.filter((l) => l.drift !== "none").length;
  const lines = applyOverviewView(data.lines, view);
  const botIds = data.bots.map((b) => b.botId);
  const oldBots = new Set(data.bots.filter(factsAreOld).map((b) => b.botId));

  return (
    <div className="space-y-5">
      {/* The journal was away or replaced lately: carried by every read, so an open page says it too. */}
      <JournalWarnings warnings={data.notices ?? []} failing={error !== null} />
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-bold">Overview</h1>
        <LiveStatus updatedAt={updatedAt} failing={unsure} />
      </div>
      {halted.length > 0 && (
        // The first thing a phone shows: which bots are halted, and the way to each one's clear.
        <p data-testid="halted-summary" className="rounded bg-red-700 px-3 py-2 text-sm font-semibold text-white">
          HALTED:{" "}
          {halted.map((bot, i) => (
            <span key={bot.botId}>
              {i > 0 && ", "}
              <Link href={`/bots/${encodeURIComponent(bot.botId)}`} className="inline-block py-1 font-mono underline">
                {bot.botId}
              </Link>
              <LastKnownHalt bot={bot} />
            </span>
          ))}
          . No new entries until someone clears {halted.length === 1 ? "it" : "them"}
          {drifting > 0 && (
            <>
              ; {/* Next's Link: a bare hash link made a history entry its router does not know (components/nav/skip-link.tsx). */}
              <Link href="#books" className="inline-block py-1 underline">
                {drifting} symbol{drifting === 1 ? "" : "s"} drifting
              </Link>
            </>
          )}
          .
        </p>
      )}
      <SourceProblems sources={data.sources} />
      <AlarmBanner
        title={error ? liveFailureTitle(error) : "Not everything here is current"}
        causes={causes}
        fix={error?.fix ? `Fix: ${error.fix}` : causes.length ? "Until this clears, treat every bot below as unverified." : undefined}
      />
      <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Bots in this journal">
        {orderBotsForOverview(data.bots).map((bot) => (
          <li key={bot.botId}>
            <CanActProvider canAct={canAct} viewer={viewer}>
              <BotCard bot={bot} unsure={unsure} receivedAt={query.dataUpdatedAt} />
            </CanActProvider>
          </li>
        ))}
      </ul>

      <section aria-labelledby="books" className="space-y-3">
        <div className="flex flex-wrap items-end justify-between gap-3">
          <h2 id="books" className="text-xl font-bold">
            Books, per symbol
          </h2>
          {/* With a script the controls answer at once; without one the form is a GET of this page with the same
              parameters the URL keeps (lib/url-state/overview.ts), sent by the Apply button only a script-less page shows. */}
          <form method="get" className="flex flex-wrap items-end gap-3 text-sm" onSubmit={(e) => e.preventDefault()} data-testid="overview-view-form">
            <div className="flex flex-col">
              <label htmlFor="overview-sort">Sort by</label>
              <select
                id="overview-sort"
                name="sort"
                value={view.sort}
                onChange={(e) => setView({ sort: e.target.value as OverviewView["sort"] })}
                className="rounded border border-slate-400 bg-white px-2 py-1 dark:bg-slate-900"
              >
                {SORTS.map((s) => (
                  <option key={s} value={s}>
                    {sortLabels[s]}
                  </option>
                ))}
              </select>
            </div>
            <div className="flex flex-col">
              <label htmlFor="overview-bot">Bot</label>
              <select
                id="overview-bot"
                name="bot"
                value={view.bot ?? ""}
                onChange={(e) => setView({ bot: e.target.value || null })}
                className="rounded border border-slate-400 bg-white px-2 py-1 dark:bg-slate-900"
              >
                <option value="">all bots</option>
                {botIds.map((b) => (
                  <option key={b} value={b}>
                    {b}
                  </option>
                ))}
              </select>
            </div>
            <label className="flex items-center gap-2 py-1">
              <input
                type="checkbox"
                name="drift"
                value="1"
                checked={view.driftOnly}
                onChange={(e) => setView({ driftOnly: e.target.checked })}
                className="size-4"
              />
              drifting only
            </label>
            <noscript>
              <button type="submit" className="rounded border border-slate-400 px-3 py-1 font-semibold">
                Apply
              </button>
            </noscript>
          </form>
        </div>
        {data.lines.length === 0 ? (
          <p className="rounded border border-dashed border-slate-400 p-4 text-sm">
            No reconciliation has written any position yet. Once a bot reconciles, each symbol it or the exchange holds appears here.
          </p>
        ) : lines.length === 0 ? (
          <p className="text-sm">No symbol matches these filters.</p>
        ) : (
          <SymbolTable lines={lines} unsure={unsure} readAt={updatedAt} oldBots={oldBots} canAct={canAct} receivedAt={query.dataUpdatedAt} />
        )}
      </section>
    </div>
  );
}
