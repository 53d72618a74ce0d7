"use client";
import { useQuery } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { ViewerNote } from "@/components/actions/action-message";
import type { SignedInViewer } from "@/lib/auth/roles";
import { AlarmBanner } from "@/components/live/alarm-banner";
import { SourceProblems } from "@/components/journal/source-problems";
import { JournalProblemShown, NotCurrentShown } from "@/components/journal/journal-problem-shown";
import { JournalWarnings } from "@/components/journal/journal-warnings";
import { LiveStatus } from "@/components/live/live-status";
import { useLiveUpdatedAt } from "@/components/live/use-live-updated-at";
import { useNotCurrent } from "@/components/live/use-not-current";
import { WrappingText } from "@/components/ui/wrapping-text";
import { doubtfulQuery } from "@/lib/query-options/doubtful";
import type { DoubtfulOrder } from "@/lib/queries/doubtful";
import { notUpdatedWords } from "@/lib/live/not-current";
import { DoubtfulOrderCard } from "./doubtful-order-card";

export function DoubtfulLive({ bot, canAct, viewer = null }: { bot: string | null; canAct: boolean; viewer?: SignedInViewer | null }) {
  const options = doubtfulQuery(bot);
  const query = useQuery(options);
  const updatedAt = useLiveUpdatedAt(options, query.dataUpdatedAt);
  const { notCurrent: tooOld, ageMs } = useNotCurrent(updatedAt);
  const data = query.data;
  const [resolved, setResolved] = useState<string[]>([]);
  const onResolved = useCallback((message: string) => setResolved((r) => (r.includes(message) ? r : [message, ...r].slice(0, 10))), []);

  // Cards waiting for their action's answer, or showing a refusal for an order the list has since
  // dropped: a poll must not take an operator's answer off the screen along with the card.
  const [held, setHeld] = useState<ReadonlyMap<string, { order: DoubtfulOrder; index: number }>>(new Map());
  const listed = new Set(data?.orders.map((o) => o.clientOrderId));
  const hold = useCallback(
    (order: DoubtfulOrder, index: number, keep: boolean) =>
      setHeld((prev) => {
        if (keep === prev.has(order.clientOrderId)) return prev;
        const next = new Map(prev);
        if (keep) next.set(order.clientOrderId, { order, index });
        else next.delete(order.clientOrderId);
        return next;
      }),
    [],
  );
  // A held card keeps its place among the others, so it does not jump under the operator's finger.
  const shown: { order: DoubtfulOrder; goneFromList: boolean }[] = (data?.orders ?? []).map((order) => ({ order, goneFromList: false }));
  for (const [id, h] of held) {
    if (!listed.has(id)) shown.splice(Math.min(h.index, shown.length), 0, { order: h.order, goneFromList: true });
  }
  // A journal that cannot be read may hold doubtful orders: the empty list must not vouch for it.
  const unread = (data?.sources ?? []).filter((s) => !s.ok).map((s) => s.name);
  const causes = query.error ? [`cannot read right now: ${query.error.message}`] : tooOld ? [notUpdatedWords(ageMs)] : [];
  return (
    <div className="space-y-4">
      <JournalWarnings warnings={data?.notices ?? []} failing={!!query.error} />
      <JournalProblemShown error={query.error} />
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-bold">Doubtful orders{bot ? ` of ${bot}` : ""}</h1>
        <LiveStatus updatedAt={updatedAt} failing={causes.length > 0} />
      </div>
      <p className="text-sm text-slate-700 dark:text-slate-200">
        Orders whose fate on the exchange nobody can vouch for. Each one is settled by asking the exchange about its client order id, never by sending it again.
      </p>
      {!canAct && <ViewerNote next={bot ? `/doubtful?bot=${encodeURIComponent(bot)}` : "/doubtful"} viewer={viewer} />}
      {resolved.length > 0 && (
        <ul
          role="status"
          data-testid="resolved-notice"
          className="space-y-1 rounded bg-emerald-50 p-3 text-sm text-emerald-950 dark:bg-emerald-950 dark:text-emerald-50"
        >
          {resolved.map((m) => (
            <li key={m} className="break-words">
              Resolved: <WrappingText text={m} />
            </li>
          ))}
        </ul>
      )}
      <SourceProblems sources={data?.sources} />
      <NotCurrentShown when={causes.length > 0} />
      <AlarmBanner title="This list may be out of date" causes={causes} fix="Treat the list as incomplete until it updates again." />
      {!data ? null : shown.length === 0 ? (
        <p data-testid="no-doubtful" className="rounded border border-dashed border-slate-400 p-4 text-sm">
          {unread.length > 0
            ? `No doubtful order${bot ? ` for ${bot}` : ""} in the journals that can be read; ${unread.join(", ")} cannot be read: ${unread.length > 1 ? "their" : "its"} orders are not shown.`
            : `No doubtful order${bot ? ` for ${bot}` : ""}: every order is settled, or live and recently updated.`}
        </p>
      ) : (
        <>
          {data.total > data.orders.length && (
            <p role="status" className="text-sm font-semibold">
              Showing the {data.orders.length} most recently updated of {data.total} doubtful orders.
            </p>
          )}
          <ul className="grid gap-4 lg:grid-cols-2" aria-label="Doubtful orders">
            {shown.map(({ order: o, goneFromList }, i) => (
              <li key={o.clientOrderId}>
                <DoubtfulOrderCard
                  order={o}
                  canAct={canAct}
                  onResolved={onResolved}
                  // Held while its answer is on the way; after a refusal, only if the list has dropped it.
                  onBusy={(order, busy, ok) => hold(order, i, busy || (ok === false && !listed.has(order.clientOrderId)))}
                  goneFromList={goneFromList}
                  receivedAt={query.dataUpdatedAt}
                  onDismiss={() => hold(o, i, false)}
                />
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
