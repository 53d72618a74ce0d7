import { readerSeesNames } from "@/lib/auth/reader";
import type { Metadata } from "next";
import Link from "next/link";
import { connection } from "next/server";
import { IncidentTimeline } from "@/components/incidents/incident-timeline";
import { PrunedNotice } from "@/components/retention/pruned-notice";
import { IncidentWindowForm } from "@/components/incidents/incident-window-form";
import { JournalUnavailable } from "@/components/journal/journal-unavailable";
import { UtcTime } from "@/components/ui/utc-time";
import { formatAge, sameUtcDay } from "@/lib/text/format";
import {
  INCIDENT_KINDS,
  incidentExportHref,
  incidentHref,
  incidentListHref,
  wantsAllIncidentRows,
  parseIncidentQuery,
  shiftWindow,
  wantsWindow,
  type IncidentFilters,
} from "@/lib/url-state/incidents";
import { IncidentList } from "@/components/incidents/incident-list";
import { EXPORT_ROW_CAP } from "@/lib/queries/incidents";
import { readIncidentBots, readIncidentList, readIncidentWindow } from "@/lib/queries/screens";
import { warmExportThread } from "@/lib/incidents/export-thread";
import { toUtcInputValue } from "@/lib/url-state/symbol";
import { SourceProblems } from "@/components/journal/source-problems";
import { JournalWarnings } from "@/components/journal/journal-warnings";
import { BOT_ID_MAX } from "@/lib/journal/ids";
import { TAP_TARGET } from "@/components/ui/tap-target";

/** The tab says what the heading says: the list is "Incidents", a window the "Incident review" (a try-out read the list's tab as the review). */
export async function generateMetadata({ searchParams }: PageProps<"/incidents">): Promise<Metadata> {
  return { title: wantsWindow(await searchParams) ? "Incident review · driftwatch" : "Incidents · driftwatch" };
}

/** A journal of several that cannot be read: the page says what it leaves out, never shows a quiet hour. */
const UNREAD = "what happened in it is not shown here";

const defaultedWords = {
  last_hour: "No window given: showing the last hour.",
  latest_activity: "Nothing was recorded in the last hour: showing the hour up to the latest activity in the journals.",
  empty_journal: "The journal holds no order events, reconciliations or breaker events yet.",
} as const;

function Intro() {
  return (
    <div className="space-y-1">
      <h1 className="text-2xl font-bold">Incident review</h1>
      <p className="text-sm text-slate-700 dark:text-slate-200">
        Everything the journal recorded in a window, oldest first: order events, reconciliations and the drifts they found, trips and clears, and what operators
        did. Times are UTC to the millisecond; on a computer, hover a time to see it in your own time zone.{" "}
        <Link href={incidentListHref(null)} className="underline">
          The list of incidents
        </Link>{" "}
        tells each halt as a story.
      </p>
    </div>
  );
}

export default async function IncidentsPage({ searchParams }: PageProps<"/incidents">) {
  await connection();
  const params = await searchParams;
  // The bare address (or ?bot=) is the list of incidents; a window, a kind or view=window is the minute-by-minute review.
  if (!wantsWindow(params)) {
    const raw = params.bot;
    const bot = (Array.isArray(raw) ? raw[0] : raw)?.slice(0, BOT_ID_MAX) || null;
    const names = await readerSeesNames();
    const list = await readIncidentList({ names, bot });
    if (!list.ok) return <JournalUnavailable error={list.error} source={list.source} />;
    const { sources, ...data } = list.data;
    return (
      <div className="space-y-4">
        <JournalWarnings warnings={list.journal.warnings} />
        <SourceProblems sources={sources} consequence={UNREAD} />
        <IncidentList {...data} bot={bot} several={sources !== undefined} allRows={wantsAllIncidentRows(params)} />
      </div>
    );
  }
  const query = parseIncidentQuery(params);
  const read = await readIncidentBots();
  if (!read.ok) {
    return <JournalUnavailable error={read.error} />;
  }
  const { data: bots, journal } = read;

  if (!query.ok) {
    return (
      <div className="space-y-4">
        <Intro />
        <section
          role="alert"
          data-testid="window-error"
          className="rounded-lg border-2 border-amber-600 bg-amber-50 p-3 text-amber-950 dark:bg-amber-950 dark:text-amber-50"
        >
          <h2 className="font-bold">This window cannot be shown</h2>
          <p className="mt-1 text-sm">{query.message}</p>
          <p className="mt-1 text-sm">
            Fix the fields below, or{" "}
            <Link href="/incidents" className="font-semibold underline">
              start again from the last hour
            </Link>
            .
          </p>
        </section>
        <IncidentWindowForm values={query.raw} bots={bots} fieldErrors={query.fieldErrors} />
      </div>
    );
  }

  const filters: IncidentFilters = { bot: query.bot, kinds: query.kinds };
  // The window's download link is on this page: its export thread loads now, not at the click.
  void warmExportThread();
  const names = await readerSeesNames();
  const found = await readIncidentWindow({ names, from: query.from, to: query.to, filters });
  if (!found.ok) {
    return <JournalUnavailable error={found.error} source={found.source} />;
  }
  const { window, timeline } = found.data;
  const readAt = new Date();
  const { count } = timeline;
  const { trips, unknownPositions: unknown, unknownPositionsFound, unknownOrders, operatorActions } = timeline.tallies;
  const width = Date.parse(window.to) - Date.parse(window.from);
  const allKinds = filters.kinds.length === INCIDENT_KINDS.length;

  return (
    <div className="space-y-4">
      <JournalWarnings warnings={journal.warnings} />
      <SourceProblems sources={timeline.sources} consequence={UNREAD} />
      <Intro />
      {/* As the symbol page fills its range: `2026-12-05 13:16:00`, the milliseconds only when there are some. */}
      <IncidentWindowForm values={{ from: toUtcInputValue(window.from), to: toUtcInputValue(window.to), bot: filters.bot, kinds: filters.kinds }} bots={bots} />

      <section aria-labelledby="timeline" className="space-y-3">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="timeline" className="text-xl font-bold">
            Timeline
          </h2>
          <nav aria-label="Move the window" className="flex gap-3 text-sm">
            <Link href={incidentHref(shiftWindow(window, -1), filters)} className={`underline ${TAP_TARGET}`}>
              ← {formatAge(width)} earlier
            </Link>
            <Link href={incidentHref(shiftWindow(window, 1), filters)} className={`underline ${TAP_TARGET}`}>
              {formatAge(width)} later →
            </Link>
          </nav>
        </div>
        <p className="text-sm" data-testid="window-summary">
          <UtcTime iso={window.from} className="font-mono" /> to{" "}
          <UtcTime iso={window.to} className="font-mono" withDate={!sameUtcDay(window.from, window.to)} /> ({formatAge(width)})
          {filters.bot ? (
            <>
              , bot <span className="font-mono">{filters.bot}</span> only (
              <Link href={incidentHref(window, { ...filters, bot: null })} className="underline">
                all bots
              </Link>
              )
            </>
          ) : (
            ", all bots"
          )}
          {allKinds ? "" : `, ${filters.kinds.join(", ")} only`}.{window.defaulted ? ` ${defaultedWords[window.defaulted]}` : ""}
        </p>
        {Date.parse(window.to) > readAt.getTime() && (
          // A review page is read once, not watched: a window that runs past now says what it lacks.
          <p className="rounded border border-amber-600 bg-amber-50 p-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50" data-testid="window-open">
            <strong>This window is not over yet:</strong> it shows the journal as read at <UtcTime iso={readAt.toISOString()} className="font-mono" />; anything
            written since is not here.{" "}
            <Link href={incidentHref(window, filters)} className="font-semibold underline">
              Read it again
            </Link>{" "}
            (a download reads it afresh).
          </p>
        )}
        <p className="text-sm" data-testid="window-counts">
          <strong>{count.toLocaleString("en-US")}</strong> event{count === 1 ? "" : "s"}
          {trips > 0 && (
            <>
              {" · "}
              <strong className="text-red-800 dark:text-red-300">
                {trips} trip{trips === 1 ? "" : "s"}
              </strong>
            </>
          )}
          {unknown > 0 && (
            <>
              {" · "}
              <strong className="text-red-800 dark:text-red-300">
                {unknown} unknown position{unknown === 1 ? "" : "s"}
              </strong>
              {` (${unknownPositionsWords(unknownPositionsFound)})`}
            </>
          )}
          {unknownOrders > 0 && (
            <>
              {" · "}
              <strong className="text-red-800 dark:text-red-300">
                {unknownOrders} unknown order{unknownOrders === 1 ? "" : "s"}
              </strong>
            </>
          )}
          {operatorActions > 0 && ` · ${operatorActions} operator action${operatorActions === 1 ? "" : "s"}`}
        </p>
        <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <span>Export this window:</span>
          <a href={incidentExportHref(window, filters, "json")} download className="font-semibold underline" data-testid="export-json">
            JSON
          </a>
          <a href={incidentExportHref(window, filters, "csv")} download className="font-semibold underline" data-testid="export-csv">
            CSV
          </a>
          <span className="text-slate-700 dark:text-slate-200">(up to {EXPORT_ROW_CAP.toLocaleString("en-US")} events)</span>
        </p>
        {timeline.pruned && (
          <PrunedNotice
            pruned={timeline.pruned}
            shows="There the timeline has no reconciliation cycles; the symbol pages chart those hours from the rollups."
          />
        )}
        {timeline.capped && (
          <p
            role="status"
            data-testid="timeline-capped"
            className="rounded border-2 border-amber-600 bg-amber-50 p-3 text-sm font-semibold text-amber-950 dark:bg-amber-950 dark:text-amber-50"
          >
            This window holds more than {timeline.limit.toLocaleString("en-US")} events: only the first {timeline.limit.toLocaleString("en-US")} are shown, up
            to <UtcTime iso={timeline.lastAt ?? window.to} className="font-mono" />. Narrow the window, filter by bot or kind, or continue from{" "}
            <Link href={incidentHref({ from: timeline.lastAt ?? window.from, to: window.to }, filters)} className="underline">
              the last event shown
            </Link>
            .
          </p>
        )}
        {count === 0 ? (
          <div className="rounded border border-dashed border-slate-400 p-4 text-sm" data-testid="timeline-empty">
            {window.defaulted === "empty_journal" ? (
              <p>
                Nothing to review yet: no bot has written an order event, a reconciliation or a breaker event to this journal. Point a bot at it (see{" "}
                <code>docs/journal.md</code>) or try <code>npm run demo</code>.
              </p>
            ) : (
              <p>
                Nothing was recorded in this window{filters.bot || !allKinds ? " with these filters" : ""}. Move it earlier, widen it, or{" "}
                <Link href="/incidents" className="font-semibold underline">
                  jump to the latest activity
                </Link>
                .
              </p>
            )}
          </div>
        ) : (
          <IncidentTimeline minutes={timeline.minutes} window={window} filters={filters} pruned={timeline.pruned} silences={timeline.silences} />
        )}
      </section>
    </div>
  );
}

/** Which positions were unknown, and in how many cycles each: "alpha BTCUSDT in 103 cycles, alpha BNBUSDT in 1", the first three and a count of the rest. */
function unknownPositionsWords(found: { botId: string | null; symbol: string; journal?: string; cycles: number }[]): string {
  const shown = found
    .slice(0, 3)
    .map(
      (p, i) =>
        `${p.journal ? `${p.journal} ` : ""}${p.botId ?? "?"} ${p.symbol} in ${p.cycles.toLocaleString("en-US")}${i === 0 ? ` cycle${p.cycles === 1 ? "" : "s"}` : ""}`,
    );
  return `${shown.join(", ")}${found.length > 3 ? `, and ${found.length - 3} more` : ""}`;
}
