import { HAND_HALT_PREFIX } from "@/lib/breaker/halt-cause";
import Link from "next/link";
import { IncidentsPerWeekChart } from "@/components/charts/incidents-per-week-chart";
import { UtcTime } from "@/components/ui/utc-time";
import { isOperator } from "@/lib/incidents/events";
import type { IncidentListItem, IncidentWeek } from "@/lib/incidents/story";
import { formatAge } from "@/lib/text/format";
import { visibleText } from "@/lib/text/visible-text";
import { INCIDENT_ROWS_SHOWN, incidentIdText, incidentListHref, incidentStoryHref, lastHourHref } from "@/lib/url-state/incidents";
import { DurationText } from "@/components/ui/duration-text";
import { TAP_TARGET } from "@/components/ui/tap-target";

const minutes = (ms: number | null) => (ms === null ? null : Math.round((ms / 60_000) * 10) / 10);

/** Every incident, newest first, with its durations; a chart of them per week above. */
export function IncidentList({
  items,
  weeks,
  capped,
  bots,
  bot,
  several = false,
  allRows = false,
}: {
  items: IncidentListItem[];
  weeks: IncidentWeek[];
  capped: boolean;
  bots: string[];
  bot: string | null;
  /** The console reads several journals: the list merges them. */
  several?: boolean;
  /** Every row the list read (`?rows=all`), not only the newest INCIDENT_ROWS_SHOWN. */
  allRows?: boolean;
}) {
  const shown = allRows ? items : items.slice(0, INCIDENT_ROWS_SHOWN);
  return (
    <div className="space-y-4">
      <div className="space-y-1">
        <h1 className="text-2xl font-bold">Incidents</h1>
        <p className="text-sm text-slate-700 dark:text-slate-200">
          Each halt of a bot, from its trip to its clear: what caused it, how long until someone acted, how long until it was cleared. Open one for its story
          and post-mortem, or read{" "}
          <Link href={lastHourHref(bot)} className={`underline ${TAP_TARGET}`} data-testid="last-hour">
            the last hour minute by minute
          </Link>
          .
        </p>
      </div>
      <form method="get" action="/incidents" className="flex flex-wrap items-end gap-2 text-sm">
        <label className="flex flex-col">
          <span className="font-semibold">Bot</span>
          <select name="bot" defaultValue={bot ?? ""} className="rounded border border-slate-400 bg-white p-1 dark:bg-slate-900">
            <option value="">every bot</option>
            {bots.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className="rounded bg-slate-800 px-3 py-1 font-semibold text-white dark:bg-slate-200 dark:text-slate-900">
          Show
        </button>
      </form>
      {items.length === 0 ? (
        <p className="rounded border border-dashed border-slate-400 p-4 text-sm" data-testid="no-incidents">
          {bot === null
            ? `No incidents: no bot ${several ? "in the journals that could be read" : "in this journal"} has tripped its breaker.`
            : bots.includes(bot)
              ? `No incidents for ${bot}: it has never tripped its breaker.`
              : `No incidents for ${bot}: no bot of that name is in ${several ? "the journals that could be read" : "this journal"}.`}
        </p>
      ) : (
        <>
          {weeks.length > 0 && (
            <section aria-labelledby="per-week" className="space-y-1">
              <h2 id="per-week" className="font-bold">
                Per week (named by its Monday, UTC): incidents (bars) and median time to clear (line, minutes)
              </h2>
              <IncidentsPerWeekChart
                weeks={weeks.map((w) => ({ week: w.week.slice(0, 10), incidents: w.incidents, medianMinutes: minutes(w.medianToClearMs) }))}
                label={weeks
                  .map((w) => `week of ${w.week.slice(0, 10)}: ${w.incidents} incidents, median time to clear ${formatAge(w.medianToClearMs)}`)
                  .join("; ")}
              />
            </section>
          )}
          <section aria-labelledby="list" className="space-y-1">
            <h2 id="list" className="font-bold">
              {items.length} incident{items.length === 1 ? "" : "s"}, newest first{capped ? " (the oldest are left out)" : ""}
              {shown.length < items.length ? `: the newest ${shown.length} below` : ""}
            </h2>
            {/* A try-out read 1, 2, 4 under "3 incidents" and wondered what was hidden. */}
            <p className="text-xs text-slate-600 dark:text-slate-300" data-testid="incident-numbering">
              Each incident is numbered by its trip&apos;s breaker event in the journal, so the numbers skip the clears and other breaker events between trips:
              none is hidden.
            </p>
            <ul className="divide-y divide-slate-300 text-sm dark:divide-slate-600">
              {shown.map((i) => (
                <li
                  key={incidentIdText(i.id, i.journal)}
                  data-testid="incident-row"
                  data-incident={incidentIdText(i.id, i.journal)}
                  data-status={i.status}
                  className="py-2"
                >
                  <div className="flex flex-wrap items-baseline gap-x-2">
                    {/* The bot and when it tripped, together: a bot's many incidents were links all named "alpha". */}
                    <Link href={incidentStoryHref(i.id, i.journal)} className={`font-semibold underline ${TAP_TARGET}`} data-testid="incident-link">
                      <span className="font-mono [overflow-wrap:anywhere]">{i.botId}</span>, halted <UtcTime iso={i.startedAt} className="font-mono" />
                    </Link>
                    {i.journal && (
                      <span className="text-xs text-slate-700 dark:text-slate-200" data-testid="row-journal">
                        journal <span className="font-mono">{i.journal}</span>
                      </span>
                    )}
                    <span className={`rounded px-1.5 text-xs font-bold uppercase text-white ${i.status === "open" ? "bg-red-700" : "bg-emerald-800"}`}>
                      {i.status}
                    </span>
                    {i.cyclesPrunedOn && (
                      <span
                        className="rounded border border-violet-600 px-1.5 text-xs font-bold text-violet-900 dark:text-violet-100"
                        data-testid="row-cycles-pruned"
                        title={`Its reconciliation cycles were pruned on ${i.cyclesPrunedOn.slice(0, 10)}: the trip, clear and operator actions are kept`}
                      >
                        cycles pruned
                      </span>
                    )}
                  </div>
                  <p data-testid="incident-row-cause">
                    {isOperator(i.haltedBy) && (
                      <>
                        Halted by hand by <span className="font-mono">{i.haltedBy}</span>:{" "}
                      </>
                    )}
                    {/* A hand-made halt's reason starts "halted by hand: ", which the line above already says. */}
                    {visibleText(isOperator(i.haltedBy) && i.cause.startsWith(HAND_HALT_PREFIX) ? i.cause.slice(HAND_HALT_PREFIX.length) : i.cause)}
                  </p>
                  <p className="text-slate-700 dark:text-slate-200">
                    First action{" "}
                    <span data-testid="row-first-action">
                      {i.toFirstActionMs === null ? (
                        "none yet"
                      ) : (
                        <>
                          after <DurationText ms={i.toFirstActionMs} />
                        </>
                      )}
                    </span>
                    {" · "}
                    <span data-testid="row-clear">
                      {i.toClearMs === null ? (
                        "not cleared"
                      ) : (
                        <>
                          cleared after <DurationText ms={i.toClearMs} />
                        </>
                      )}
                    </span>
                  </p>
                </li>
              ))}
            </ul>
            {shown.length < items.length && (
              <p className="pt-1 text-sm">
                <Link href={incidentListHref(bot, { allRows: true })} className={`font-semibold underline ${TAP_TARGET}`} data-testid="all-incident-rows">
                  Show all {items.length} incidents
                </Link>{" "}
                <span className="text-slate-700 dark:text-slate-200">(the chart above counts every one)</span>
              </p>
            )}
          </section>
        </>
      )}
    </div>
  );
}
