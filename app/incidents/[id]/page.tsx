import { readerSeesNames } from "@/lib/auth/reader";
import { togetherSilences } from "@/lib/incidents/silences";
import { Silence, silenceId } from "@/components/incidents/cycle-silence";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import { PositionChart, type ChartMarker } from "@/components/charts/position-chart";
import { ChartLegend } from "@/components/symbol/chart-legend";
import { ChartSpanNote } from "@/components/incidents/chart-span-note";
import { CollapsedTimeline } from "@/components/incidents/collapsed-timeline";
import { IncidentSummary } from "@/components/incidents/incident-summary";
import { PrunedNotice } from "@/components/retention/pruned-notice";
import { JournalUnavailable } from "@/components/journal/journal-unavailable";
import { JournalWarnings } from "@/components/journal/journal-warnings";
import { SourceProblems } from "@/components/journal/source-problems";
import { UtcTime } from "@/components/ui/utc-time";
import { readIncidentStory } from "@/lib/queries/screens";
import { visibleText } from "@/lib/text/visible-text";
import { MAX_WINDOW_MS, incidentHref, incidentIdText, incidentListHref, incidentStoryHref, parseIncidentId, postmortemHref } from "@/lib/url-state/incidents";
import { TAP_TARGET } from "@/components/ui/tap-target";

/** The story's window as the minute-by-minute review takes it: at most MAX_WINDOW_MS from its start (a halt open for weeks is read from its trip on). */
const reviewable = (w: { from: string; to: string }) => ({
  from: w.from,
  to: new Date(Math.min(Date.parse(w.to), Date.parse(w.from) + MAX_WINDOW_MS)).toISOString(),
});

function BackToList() {
  return (
    <p className="text-sm">
      <Link href={incidentListHref(null)} className="underline">
        ← All incidents
      </Link>
    </p>
  );
}

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const ref = parseIncidentId((await params).id);
  // Not "Incident abc": an id that cannot name an incident is not echoed as one.
  return { title: ref === null ? "No such incident · driftwatch" : `Incident ${incidentIdText(ref.trip, ref.journal)} · driftwatch` };
}

export default async function IncidentPage({ params }: { params: Promise<{ id: string }> }) {
  await connection();
  const ref = parseIncidentId((await params).id);
  if (ref === null) notFound();
  const names = await readerSeesNames();
  const read = await readIncidentStory({ names, ref });
  if (!read.ok)
    return (
      <div className="space-y-3">
        <BackToList />
        <JournalUnavailable error={read.error} source={read.source} />
      </div>
    );
  const { view, choices, unread, clears } = read.data;
  if (choices.length > 0) {
    // A bare number that several journals' trips have (or one has, and an unreadable one may): which one is meant is not ours to guess.
    return (
      <div className="space-y-3">
        <BackToList />
        <SourceProblems sources={unread} consequence={`it may hold an incident ${ref.trip} too`} />
        <h1 className="text-2xl font-bold">
          Incident {ref.trip}
          {choices.length > 1 ? `: in ${choices.length} journals` : ""}
        </h1>
        <p className="text-sm">
          {choices.length > 1
            ? `Each journal numbers its own trips, and ${choices.length} of them have a trip ${ref.trip}. Which one?`
            : `Each journal numbers its own trips. Of the journals that could be read, one has a trip ${ref.trip}; ${unread.map((u) => u.name).join(", ")} cannot be read now and may have one too.`}
        </p>
        <ul className="space-y-2 text-sm" data-testid="incident-choices">
          {choices.map((c) => (
            <li key={c.journal} className="rounded border border-slate-300 p-2 dark:border-slate-600">
              <Link href={incidentStoryHref(ref.trip, c.journal)} className="font-semibold underline">
                <span className="font-mono">{incidentIdText(ref.trip, c.journal)}</span>
              </Link>
              : <span className="font-mono [overflow-wrap:anywhere]">{c.botId}</span> of journal <span className="font-mono">{c.journal}</span>, halted{" "}
              <UtcTime iso={c.startedAt} className="font-mono" />
              <p className="[overflow-wrap:anywhere]">{visibleText(c.cause)}</p>
            </li>
          ))}
        </ul>
      </div>
    );
  }
  if (!view && clears.length > 0) {
    // The number of a clear, not of a trip (an export names both `breaker-<n>`): the incident it ended is what is meant.
    return (
      <section className="space-y-3" data-testid="clear-not-incident">
        <BackToList />
        <h1 className="text-2xl font-bold">No incident {incidentIdText(ref.trip, ref.journal)}: that number is a clear</h1>
        <p className="text-sm">
          An incident&apos;s id is the number of its trip. Breaker events share one numbering, and this one is the clear that ended an incident:
        </p>
        <ul className="space-y-2 text-sm">
          {clears.map((c) => (
            <li key={`${c.journal ?? ""}-${c.clearId}`} className="rounded border border-slate-300 p-2 dark:border-slate-600">
              Breaker event <span className="font-mono">{c.clearId}</span>
              {c.journal ? (
                <>
                  {" "}
                  of journal <span className="font-mono">{c.journal}</span>
                </>
              ) : null}{" "}
              cleared <span className="font-mono [overflow-wrap:anywhere]">{c.botId}</span> at <UtcTime iso={c.clearedAt} className="font-mono" />.{" "}
              {c.tripId === null ? (
                <>No trip of this bot before it is in the journal, so there is no incident to open.</>
              ) : (
                <Link href={incidentStoryHref(c.tripId, c.journal)} className="inline-block py-2 font-semibold underline" data-testid="cleared-incident">
                  Open incident {incidentIdText(c.tripId, c.journal)}, the one it cleared
                </Link>
              )}
            </li>
          ))}
        </ul>
      </section>
    );
  }
  if (!view) notFound();
  const { story, window, timeline, chart } = view;
  // An open incident is still being written: the page says when it was read, not watched.
  const readAt = new Date().toISOString();
  const marks = story.steps.filter((s) => s.mark === "acknowledge" || s.mark === "correction");
  const markers: ChartMarker[] = [
    { id: 0, t: Date.parse(story.startedAt), kind: "trip", reason: story.cause.reason },
    ...marks.map((s, i) => ({ id: i + 1, t: Date.parse(s.at), kind: s.mark as "acknowledge" | "correction", reason: visibleText(s.what) })),
    ...(story.clearedAt ? [{ id: marks.length + 1, t: Date.parse(story.clearedAt), kind: "clear" as const, reason: "cleared" }] : []),
  ];

  return (
    <div className="space-y-4">
      <JournalWarnings warnings={read.journal.warnings} />
      <header className="space-y-1">
        <p className="text-sm">
          <Link href={incidentListHref(null)} className={`underline ${TAP_TARGET}`}>
            ← All incidents
          </Link>
        </p>
        <h1 className="text-2xl font-bold">
          Incident {incidentIdText(story.id, view.journal)}: <span className="font-mono [overflow-wrap:anywhere]">{story.botId}</span>{" "}
          {story.status === "open" ? (
            <span className="rounded bg-red-700 px-2 text-white" data-testid="incident-status">
              OPEN
            </span>
          ) : (
            <span className="rounded bg-emerald-800 px-2 text-white" data-testid="incident-status">
              CLEARED
            </span>
          )}
        </h1>
        <p className="text-sm">
          Halted <UtcTime iso={story.startedAt} className="font-mono" />
          {story.clearedAt ? (
            <>
              , cleared <UtcTime iso={story.clearedAt} className="font-mono" />
            </>
          ) : (
            <>
              , still halted:{" "}
              <Link href={`/bots/${encodeURIComponent(story.botId)}`} className="font-semibold underline">
                review and clear it
              </Link>
              . This story is a reading at <UtcTime iso={readAt} className="font-mono" />: what happened since is not in it until the page is read again
            </>
          )}
          .{" "}
          <a href={postmortemHref(story.id, view.journal)} download className={`font-semibold underline ${TAP_TARGET}`} data-testid="postmortem">
            Post-mortem (Markdown)
          </a>
          {" · "}
          {/* At the trip, as the breakers page's link is: on a phone the window's form alone fills the first screen. */}
          <Link
            href={incidentHref(reviewable(window), { bot: story.botId }, view.journal ? `${view.journal}/breaker-${story.id}` : `breaker-${story.id}`)}
            className={`underline ${TAP_TARGET}`}
            data-testid="minute-by-minute"
          >
            Minute by minute
          </Link>
        </p>
      </header>

      {view.pruned.history && (
        <PrunedNotice
          pruned={view.pruned.history}
          shows="This incident's timeline has no reconciliation cycles there; its trip, clear and operator actions are kept."
        />
      )}

      <IncidentSummary story={story} readAt={view.readAt} pruned={view.pruned} />

      {chart && story.symbol && (
        <section aria-labelledby="chart" className="space-y-1">
          <h2 id="chart" className="font-bold">
            {story.symbol}: the bot&apos;s book (ours) against the exchange (theirs)
          </h2>
          {!view.chartSpan.whole && <ChartSpanNote story={story} symbol={story.symbol} span={view.chartSpan} window={window} readAt={view.readAt} />}
          <PositionChart
            points={chart.points}
            episodes={chart.episodes}
            markers={markers}
            from={Date.parse(chart.window.from)}
            to={Date.parse(chart.window.to)}
            height={220}
            bucketMs={chart.bucketMs}
            prunedSpans={view.pruned.history?.spans}
            label={`${story.symbol} of ${story.botId} from ${chart.window.from} to ${chart.window.to}, with the trip, acknowledgements, corrections and clear marked`}
          />
          <ChartLegend operatorMarks />
        </section>
      )}

      {view.silences.length > 0 && (
        // A stop of the bot is no quiet stretch: the timeline holds nothing of it, and the chart only a grey band (a try-out).
        <section aria-label="Where the bot wrote nothing" className="space-y-1.5" data-testid="story-silences">
          {togetherSilences(view.silences).map((s) => (
            // The story ends at the clear, or now while the bot is halted: "the end of this window" meant nothing there.
            <Silence key={silenceId(s)} silence={s} until={story.status === "open" ? "now (still halted)" : "the clear"} />
          ))}
        </section>
      )}

      <section aria-label="Timeline" className="space-y-1">
        <CollapsedTimeline timeline={timeline} events={timeline.events} cyclesPrunedOn={view.pruned.cyclesPrunedOn} />
        {timeline.capped && (
          <p role="status" className="text-sm font-semibold">
            More events than the console reads at once: the timeline stops early.{" "}
            <Link href={incidentHref(reviewable(window), { bot: story.botId })} className="underline">
              Read it minute by minute
            </Link>
            .
          </p>
        )}
      </section>
    </div>
  );
}
