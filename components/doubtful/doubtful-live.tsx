"use client";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { ViewerNote } from "@/components/actions/action-message";
import { AlarmBanner } from "@/components/live/alarm-banner";
import { LiveStatus } from "@/components/live/live-status";
import { useHydrated } from "@/components/live/use-hydrated";
import { useNow } from "@/components/live/use-now";
import { doubtfulQuery } from "@/lib/live/queries";
import { DoubtfulOrderCard } from "./doubtful-order-card";

export function DoubtfulLive({ bot, canAct }: { bot: string | null; canAct: boolean }) {
  const query = useQuery(doubtfulQuery(bot));
  const now = useNow();
  // Only the browser knows how old the data is; the server and hydration must render the same.
  const hydrated = useHydrated();
  const tooOld = hydrated && query.dataUpdatedAt > 0 && now - query.dataUpdatedAt > 5_000;
  const data = query.data;
  const [resolved, setResolved] = useState<string[]>([]);
  const onResolved = useCallback((message: string) => setResolved((r) => (r.includes(message) ? r : [message, ...r].slice(0, 10))), []);
  const causes = query.error ? [`cannot read right now: ${query.error.message}`] : tooOld ? ["this list has stopped updating"] : [];
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-bold">Doubtful orders{bot ? ` of ${bot}` : ""}</h1>
        <LiveStatus updatedAt={query.dataUpdatedAt} failing={causes.length > 0} />
      </div>
      <p className="text-sm text-slate-700 dark:text-slate-200">
        Orders whose fate on the exchange nobody can vouch for. Each one is settled by asking the exchange about its client order id, never by
        sending it again.
      </p>
      {!canAct && <ViewerNote />}
      {resolved.length > 0 && (
        <ul role="status" data-testid="resolved-notice" className="space-y-1 rounded bg-emerald-50 p-3 text-sm text-emerald-950 dark:bg-emerald-950 dark:text-emerald-50">
          {resolved.map((m) => (
            <li key={m} className="break-all">
              Resolved: {m}
            </li>
          ))}
        </ul>
      )}
      <AlarmBanner title="This list may be out of date" causes={causes} fix="Treat the list as incomplete until it updates again." />
      {!data ? null : data.orders.length === 0 ? (
        <p data-testid="no-doubtful" className="rounded border border-dashed border-slate-400 p-4 text-sm">
          No doubtful order{bot ? ` for ${bot}` : ""}: every order is settled, or live and recently updated.
        </p>
      ) : (
        <>
          {data.total > data.orders.length && (
            <p role="status" className="text-sm font-semibold">
              Showing the {data.orders.length} most recently updated of {data.total} doubtful orders.
            </p>
          )}
          <ul className="grid gap-4 lg:grid-cols-2" aria-label="Doubtful orders">
            {data.orders.map((o) => (
              <li key={o.clientOrderId}>
                <DoubtfulOrderCard order={o} canAct={canAct} onResolved={onResolved} />
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
