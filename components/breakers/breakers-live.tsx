"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { AlarmBanner } from "@/components/live/alarm-banner";
import { SourceProblems } from "@/components/journal/source-problems";
import { JournalProblemShown, NotCurrentShown } from "@/components/journal/journal-problem-shown";
import { JournalWarnings } from "@/components/journal/journal-warnings";
import { LiveStatus } from "@/components/live/live-status";
import { useLiveUpdatedAt } from "@/components/live/use-live-updated-at";
import { useNotCurrent } from "@/components/live/use-not-current";
import { notUpdatedWords } from "@/lib/live/not-current";
import type { BreakersView } from "@/lib/url-state/breakers";
import { breakersQuery } from "@/lib/query-options/breakers";
import { BotBreakers, breakersHeadingId, breakerWord } from "./bot-breakers";

export function BreakersLive({ view }: { view: BreakersView }) {
  const options = breakersQuery(view);
  const query = useQuery(options);
  const updatedAt = useLiveUpdatedAt(options, query.dataUpdatedAt);
  const { notCurrent: tooOld, ageMs } = useNotCurrent(updatedAt);
  const data = query.data;
  // Out of date, no breaker may read as fine.
  const causes = query.error ? [`cannot read right now: ${query.error.message}`] : tooOld ? [notUpdatedWords(ageMs)] : [];
  const unsure = causes.length > 0;

  return (
    <div className="space-y-5">
      <JournalWarnings warnings={data?.notices ?? []} failing={!!query.error} />
      <JournalProblemShown error={query.error} />
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-bold">Breakers{view.bot ? ` of ${view.bot}` : ""}</h1>
        <LiveStatus updatedAt={updatedAt} failing={unsure} />
      </div>
      <p className="text-sm text-slate-700 dark:text-slate-200">
        Each bot&apos;s breaker now, then its trips and clears, newest first ({data?.pageSize ?? 20} per page). A trip halts new entries until a person clears
        it.
        {view.bot && (
          <>
            {" "}
            <Link href="/breakers" className="underline">
              All bots
            </Link>
            {view.before !== null && (
              <>
                {" · "}
                <Link href={`/breakers?bot=${encodeURIComponent(view.bot)}`} className="underline">
                  Newest events of {view.bot}
                </Link>
              </>
            )}
          </>
        )}
      </p>
      <SourceProblems sources={data?.sources} />
      <NotCurrentShown when={unsure} />
      <AlarmBanner title="These breakers may be out of date" causes={causes} fix="Until this clears, treat every bot as possibly halted." />
      {data && data.bots.length > 1 && (
        // Each bot's history runs to twenty events: on a phone the second bot's breaker was a
        // thousand pixels down (a try-out). Every bot's state first, each a link to its card.
        <nav aria-label="Bots on this page" data-testid="breakers-contents" className="flex flex-wrap gap-x-4 text-sm">
          {data.bots.map((b) => (
            // Through Next's router, not a bare <a>: a hash change the router did not make left Back,
            // from a page opened afterwards, on that page's content under this page's address.
            <Link key={b.botId} href={`#${encodeURIComponent(breakersHeadingId(b.botId))}`} className="inline-block py-1.5 underline">
              <span className="break-all font-mono">{b.botId}</span>{" "}
              <span className={b.breaker?.halted ? "font-bold text-red-700 dark:text-red-400" : ""}>{breakerWord(b.breaker, unsure)}</span>
              {b.vouch && !unsure && <span className="font-bold text-amber-800 dark:text-amber-300"> {b.vouch.now.toUpperCase()}</span>}
            </Link>
          ))}
        </nav>
      )}
      {data && (
        <div className="grid gap-8 lg:grid-cols-2">
          {data.bots.map((b) => (
            <BotBreakers key={b.botId} bot={b} unsure={unsure} paged={view.before !== null} />
          ))}
        </div>
      )}
    </div>
  );
}
