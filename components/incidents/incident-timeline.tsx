import { gapWords } from "@/lib/incidents/collapse";
import type { RepeatLine } from "@/lib/incidents/lines";
import type { PrunedHistory } from "@/lib/queries/pruned-history";
import { FOLD_ROUTINE_OVER, minuteOf, QUIET_RUN_MIN, timelineBlocks, type TimelineMinute } from "@/lib/incidents/fold";
import { togetherSilences, type CycleSilence, type ToldSilence } from "@/lib/incidents/silences";
import { botsWords, duration, Silence, silenceId } from "./cycle-silence";
import { UtcTime } from "@/components/ui/utc-time";
import { incidentExportHref, MINUTE_MS, type IncidentFilters, type IncidentWindow } from "@/lib/url-state/incidents";
import { FoldedMinute } from "./folded-minute";
import { IncidentEventRow } from "./incident-event-row";

const minuteTitle = (start: number) => (Number.isNaN(start) ? "unreadable time" : `${new Date(start).toISOString().slice(0, 16).replace("T", " ")} UTC`);

/** A minute's lines: a run of events that say the same thing is one row, "×N" with its first and last time, and each of them is a click away. */
function EventList({ lines }: { lines: readonly RepeatLine[] }) {
  if (lines.length === 0) return null;
  return (
    <ol className="space-y-1.5">
      {lines.map((l) => (
        <li key={l.event.id}>
          <IncidentEventRow event={l.event} repeat={l.count > 1 ? { count: l.count, lastAt: l.lastAt } : undefined} audit={l.audit} />
          {l.repeats.length > 0 && (
            <details className="ml-4 mt-1 text-sm" data-testid="repeat-events">
              <summary className="cursor-pointer py-1 text-xs underline">
                The other {l.repeats.length.toLocaleString("en-US")} of these {l.count.toLocaleString("en-US")}, one by one
              </summary>
              <ol className="mt-1 space-y-1.5">
                {l.repeats.map((e) => (
                  <li key={e.id}>
                    <IncidentEventRow event={e} />
                  </li>
                ))}
              </ol>
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}

/** The minute's own part of the window: a window's first and last minute may be cut by its edges. */
function minuteWindow(start: number, window: IncidentWindow): IncidentWindow {
  const from = Math.max(start, Date.parse(window.from));
  const to = Math.min(start + MINUTE_MS, Date.parse(window.to));
  return { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}

/**
 * The window minute by minute: a header per minute that has events, and a line saying how long
 * nothing was recorded between two of them, so quiet stretches read as quiet, not as missing. A
 * busy minute shows its notable events and folds the routine rest (lib/incidents/fold.ts); events
 * said again one under the other are one row with their count (lib/incidents/lines.ts).
 */
export function IncidentTimeline({
  minutes,
  window,
  filters,
  pruned,
  silences,
}: {
  minutes: readonly TimelineMinute[];
  window: IncidentWindow;
  filters: IncidentFilters;
  /** The window's pruned spans: a gap there says its cycles were pruned, and when. */
  pruned: PrunedHistory | null;
  /** Where a bot wrote no reconciliation: each is said in the minute it starts. */
  silences: readonly CycleSilence[];
}) {
  const folded = minutes.filter((m) => m.fold).length;
  const told = togetherSilences(silences);
  const silentFrom = new Map<number, ToldSilence[]>();
  for (const s of told) silentFrom.set(minuteOf(s.from), [...(silentFrom.get(minuteOf(s.from)) ?? []), s]);
  const blocks = timelineBlocks(minutes, QUIET_RUN_MIN, (m) => silentFrom.has(m.start));
  const quietRuns = blocks.filter((b) => b.kind === "quiet").length;
  /** How long nothing was recorded before the minute at `index`, said on a line above it. */
  const gapBefore = (index: number) => {
    const m = minutes[index]!;
    const prev = minutes[index - 1];
    const gap = prev ? m.start - prev.start - MINUTE_MS : 0;
    return gap > 0 ? (
      <p className="mb-3 border-t border-dashed border-slate-400 pt-1 text-xs text-slate-700 dark:text-slate-200" data-testid="minute-gap">
        {gapWords({ from: m.start - gap, to: m.start }, pruned)}
      </p>
    ) : null;
  };
  const minuteSection = (m: TimelineMinute, index: number) => {
    const id = `minute-${index}`;
    const fold = m.fold;
    return (
      <section aria-labelledby={id} data-testid="incident-minute">
        <h3 id={id} className="sticky top-0 z-10 mb-1 bg-slate-50/95 py-1 font-mono text-sm font-bold dark:bg-slate-950/95">
          {minuteTitle(m.start)}
          <span className="ml-2 font-sans font-normal text-slate-700 dark:text-slate-200">
            {m.total.toLocaleString("en-US")} event{m.total === 1 ? "" : "s"}
            {fold ? `, ${fold.notable.length === 0 ? "none" : fold.notable.length} notable` : ""}
          </span>
        </h3>
        {/* First in its minute, under the heading: at the end, after "Show all", it read as the next minute's (a try-out). */}
        {silentFrom.get(m.start)?.map((s) => (
          <Silence key={`${s.journal ?? ""}/${s.bots.join(",")}/${s.from}`} silence={s} />
        ))}
        {fold && !Number.isNaN(m.start) ? (
          <FoldedMinute
            exportHref={incidentExportHref(minuteWindow(m.start, window), filters, "json")}
            total={m.total}
            routine={fold.routine}
            summary={fold.routineKinds.map((k) => k.words).join(", ")}
            listId={`${id}-events`}
          >
            <EventList lines={m.lines} />
          </FoldedMinute>
        ) : (
          <EventList lines={m.lines} />
        )}
      </section>
    );
  };
  return (
    <>
      {folded > 0 && (
        <p className="text-sm" data-testid="fold-note">
          {folded === 1 ? "One busy minute" : `${folded.toLocaleString("en-US")} busy minutes`} (over {FOLD_ROUTINE_OVER} routine events each){" "}
          {folded === 1 ? "shows" : "show"} only their notable events: whatever went wrong, and whatever an operator did. The routine rest (intents, orders sent
          and filled, clean reconciliations, drift cycles unchanged from the one before) is counted on one line you can open.
          {quietRuns > 0 && " Busy minutes in a row with nothing notable are one block, counted together; each of its minutes is a click away."}
        </p>
      )}
      {told.length > 0 && (
        <p className="text-sm" data-testid="silence-note">
          <strong>{told.length === 1 ? "Once" : `${told.length} times`} in this window a bot wrote no reconciliation for longer than four of its cycles</strong>{" "}
          (
          {told.map((s, i) => (
            <span key={silenceId(s)}>
              {i > 0 && "; "}
              <a href={`#${silenceId(s)}`} className="underline">
                {botsWords(s)} at <UtcTime iso={s.from} />, for {duration(s.ms)}
              </a>
            </span>
          ))}
          ): stopped, paused, or unable to write its journal. Nothing of that time is in the journal, so those minutes are not quiet ones; each is marked in the
          minute it starts.
        </p>
      )}
      <ol className="space-y-4" aria-label="Events, oldest first, by minute">
        {blocks.map((b) => {
          if (b.kind === "minute")
            return (
              <li key={`${b.minute.start}-${b.index}`}>
                {gapBefore(b.index)}
                {minuteSection(b.minute, b.index)}
              </li>
            );
          const first = b.minutes[0]!;
          const last = b.minutes.at(-1)!;
          const id = `quiet-${first.index}`;
          return (
            <li key={`quiet-${first.minute.start}`}>
              {gapBefore(first.index)}
              <section aria-labelledby={id} data-testid="quiet-run">
                {/* Not pinned: opened, its minutes' headings pin themselves, and the two piled up on each other (a try-out). */}
                <h3 id={id} className="mb-1 py-1 font-mono text-sm font-bold">
                  {runTitle(first.minute.start, last.minute.start)}
                  <span className="ml-2 font-sans font-normal text-slate-700 dark:text-slate-200">
                    {b.minutes.length} minutes, {b.total.toLocaleString("en-US")} events, none notable
                  </span>
                </h3>
                <p data-testid="quiet-run-routine" className="rounded border border-dashed border-slate-400 p-2 text-sm">
                  <strong>{b.routine.toLocaleString("en-US")}</strong> routine events folded: {b.routineKinds.map((k) => k.words).join(", ")}.{" "}
                  <a
                    href={incidentExportHref(runWindow(first.minute.start, last.minute.start, window), filters, "json")}
                    className="inline-flex min-h-6 items-center text-xs underline"
                  >
                    as JSON
                  </a>
                </p>
                <details className="mt-1.5 text-sm" data-testid="quiet-run-minutes">
                  <summary className="cursor-pointer py-1 text-xs underline">Each of these {b.minutes.length} minutes, to open one</summary>
                  <ol className="mt-2 space-y-4">
                    {b.minutes.map(({ minute, index }) => (
                      <li key={`${minute.start}-${index}`}>{minuteSection(minute, index)}</li>
                    ))}
                  </ol>
                </details>
              </section>
            </li>
          );
        })}
      </ol>
    </>
  );
}

/** A run's part of the window, from its first minute to the end of its last. */
function runWindow(first: number, last: number, window: IncidentWindow): IncidentWindow {
  return { from: minuteWindow(first, window).from, to: minuteWindow(last, window).to };
}

/** A run's first and last minute: "2026-12-05 12:01–12:07 UTC", the date again when the run crosses midnight. */
function runTitle(first: number, last: number): string {
  const a = new Date(first).toISOString();
  const b = new Date(last).toISOString();
  const end = a.slice(0, 10) === b.slice(0, 10) ? b.slice(11, 16) : `${b.slice(0, 10)} ${b.slice(11, 16)}`;
  return `${a.slice(0, 10)} ${a.slice(11, 16)}–${end} UTC`;
}
