"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { AlarmBanner } from "@/components/live/alarm-banner";
import { SourceProblems } from "@/components/journal/source-problems";
import { LiveStatus } from "@/components/live/live-status";
import { useLiveUpdatedAt } from "@/components/live/use-live-updated-at";
import { useHydrated } from "@/components/live/use-hydrated";
import { useNow } from "@/components/live/use-now";
import type { BreakersView } from "@/lib/url-state/breakers";
import { breakersQuery } from "@/lib/query-options/breakers";
import { BotBreakers } from "./bot-breakers";

/** Data older than this means polling has stopped working: no breaker may read as fine. */
const TOO_OLD_MS = 5_000;

export function BreakersLive({ view }: { view: BreakersView }) {
  const options = breakersQuery(view);
  const query = useQuery(options);
  const updatedAt = useLiveUpdatedAt(options, query.dataUpdatedAt);
  const now = useNow();
  const data = query.data;
  // Only the browser knows how old the data is; the server and hydration must render the same.
  const hydrated = useHydrated();
  const tooOld = hydrated && updatedAt > 0 && now - updatedAt > TOO_OLD_MS;
  const causes = query.error
    ? [`cannot read right now: ${query.error.message}`]
    : tooOld
      ? [`the page has not been updated for ${Math.round((now - updatedAt) / 1000)} s`]
      : [];
  const unsure = causes.length > 0;

  return (
    <div className="space-y-5">
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
      <AlarmBanner title="These breakers may be out of date" causes={causes} fix="Until this clears, treat every bot as possibly halted." />
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
