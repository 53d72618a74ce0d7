"use client";
import { ResolveOrderActions } from "@/components/actions/resolve-order-actions";
import Link from "next/link";
import { useLiveAge } from "@/components/live/use-now";
import { symbolPath } from "@/lib/query-options/symbol";
import { UtcTime } from "@/components/ui/utc-time";
import { WrappingText } from "@/components/ui/wrapping-text";
import { formatAge } from "@/lib/text/format";
import { formatSigned } from "@/lib/text/signed";
import type { DoubtfulOrder } from "@/lib/queries/doubtful";
import { visibleText } from "@/lib/text/visible-text";
import { spacedJson } from "@/lib/text/wrap";
import { eventRuns } from "@/lib/journal/event-runs";
import { RunCount, RunTime } from "@/components/ui/event-run";

function IdCheck({ check }: { check: DoubtfulOrder["idCheck"] }) {
  switch (check.kind) {
    case "ok":
      return (
        <span
          className="text-sm text-slate-600 dark:text-slate-300"
          title="The client order id is the hash of the decision (strategy, symbol, side, quantity, bar) with the bot's prefix: this is the bot's own order, and a resend can only reuse this id, never place a second order."
        >
          the bot&apos;s own id (it recomputes from the decision)
        </span>
      );
    case "foreign":
      return (
        <span
          data-testid="id-flag"
          className="rounded bg-purple-700 px-1.5 py-0.5 text-xs font-bold uppercase text-white"
          title={`does not start with ${check.expectedPrefix}-`}
        >
          Foreign id: not this bot&apos;s prefix ({check.expectedPrefix}-)
        </span>
      );
    case "corrupt":
      return (
        <span data-testid="id-flag" className="rounded bg-purple-700 px-1.5 py-0.5 text-xs font-bold uppercase text-white">
          Corrupt id: {check.reason}
        </span>
      );
    case "no_bot_row":
      return (
        <span data-testid="id-flag" className="rounded bg-slate-600 px-1.5 py-0.5 text-xs font-bold uppercase text-white">
          Id unchecked: bot not registered
        </span>
      );
  }
}

/** The drift this order's fill would explain: settling the order is the first step towards clearing it. */
function MayExplain({ botId, self, link }: { botId: string; self: string; link: NonNullable<DoubtfulOrder["mayExplain"]> }) {
  const others = link.clientOrderIds.filter((id) => id !== self);
  return (
    <p data-testid="may-explain" className="mt-2 rounded bg-amber-50 p-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50">
      May explain the drift on{" "}
      <Link href={symbolPath(botId, link.symbol)} className="font-mono font-semibold underline">
        {link.symbol}
      </Link>
      : exchange {formatSigned(link.theirs)}, book {formatSigned(link.ours)}
      {others.length > 0 && (
        <>
          {" "}
          (if filled together with <span className="font-mono [overflow-wrap:anywhere]">{others.join(", ")}</span>)
        </>
      )}
      .
    </p>
  );
}

/**
 * The events a lookup writes: found, proved absent, or failed (an `error` whose detail says
 * `"during": "lookup"`, as the shipped writers write it).
 */
function isLookup(e: { kind: string; detail: string }): boolean {
  if (e.kind === "lookup_found" || e.kind === "lookup_absent") return true;
  if (e.kind !== "error") return false;
  try {
    return (JSON.parse(e.detail) as { during?: unknown } | null)?.during === "lookup";
  } catch {
    return false;
  }
}

/**
 * The order's history, runs of the same event folded into one line ("×60, 03:01:10–03:16:05"), and
 * said plainly when the journal holds more than the latest events the page was sent.
 */
function OrderHistory({ order }: { order: DoubtfulOrder }) {
  const cutAt = order.eventsCutAfter;
  const before = eventRuns(cutAt === null ? order.events : order.events.slice(0, cutAt));
  const after = cutAt === null ? [] : eventRuns(order.events.slice(cutAt));
  const lines = before.length + after.length;
  const left = order.eventsTotal - order.events.length;
  const list = (runs: typeof before) =>
    runs.map((run) => (
      <li key={run.event.id} data-testid="order-event" className="break-words">
        <RunTime run={run} className="font-mono" /> · <strong>{run.event.kind}</strong> · {run.event.actor}
        <RunCount run={run} />
        {run.event.detail !== "{}" && <code className="ml-1 text-xs text-slate-600 dark:text-slate-300">{visibleText(spacedJson(run.event.detail))}</code>}
      </li>
    ));
  return (
    <details className="mt-3 text-sm" data-testid="order-history">
      <summary className="cursor-pointer font-semibold">
        History (
        {left > 0 ? `${order.events.length} of ${order.eventsTotal.toLocaleString("en-US")} events: the first and the latest` : `${order.eventsTotal} events`}
        {lines < order.events.length ? `, in ${lines} line${lines === 1 ? "" : "s"}` : ""})
      </summary>
      <ol className="mt-2 space-y-1 border-l-2 border-slate-300 pl-3 dark:border-slate-600">
        {list(before)}
        {left > 0 && (
          <li data-testid="order-history-cut" className="italic text-slate-600 dark:text-slate-300">
            … {left.toLocaleString("en-US")} event{left === 1 ? "" : "s"} between these not listed here: the journal keeps them (<code>order_events</code>).
          </li>
        )}
        {list(after)}
      </ol>
    </details>
  );
}

export function DoubtfulOrderCard({
  order,
  canAct,
  onResolved,
  onBusy,
  goneFromList,
  onDismiss,
  receivedAt,
}: {
  order: DoubtfulOrder;
  /** When the list's data arrived (the query's dataUpdatedAt): the age keeps counting from it when polls stop. */
  receivedAt?: number;
  canAct: boolean;
  onResolved?: (message: string) => void;
  onBusy?: (order: DoubtfulOrder, busy: boolean, ok?: boolean) => void;
  /** Held on screen for its action's answer, though the list no longer has it. */
  goneFromList?: boolean;
  onDismiss?: (clientOrderId: string) => void;
}) {
  const age = useLiveAge(order.ageMs, receivedAt);
  const lookups = order.events.filter(isLookup).length;
  return (
    <article
      data-testid="doubtful-order"
      data-order={order.clientOrderId}
      aria-labelledby={`o-${order.clientOrderId}`}
      className="rounded-lg border-2 border-red-700 bg-white p-4 dark:bg-slate-900"
    >
      <header className="flex flex-wrap items-start justify-between gap-2">
        <h2 id={`o-${order.clientOrderId}`} className="break-all font-mono text-base font-semibold">
          {order.clientOrderId}
        </h2>
        <span className="rounded bg-red-700 px-2 py-0.5 text-sm font-bold uppercase text-white">{order.state}</span>
      </header>
      {/* The server renders its own now; the browser's differs by the load time. On the element whose
          text it is: React does not carry it to a child, and a try-out's phone logged error #418. */}
      <p className="mt-1 text-sm">
        <span className="font-mono">{order.botId}</span> · {order.side} {order.qty} <span className="font-mono">{order.symbol}</span> ·{" "}
        <span data-testid="doubtful-age" suppressHydrationWarning>
          {formatAge(age)}
        </span>{" "}
        old
      </p>
      {goneFromList && (
        <p role="status" data-testid="gone-from-list" className="mt-2 flex flex-wrap items-center gap-2 rounded bg-slate-100 p-2 text-sm dark:bg-slate-800">
          No longer in the list of doubtful orders: it was settled meanwhile, perhaps by this very action. Kept here until your action&apos;s answer arrives.
          {onDismiss && (
            <button type="button" onClick={() => onDismiss(order.clientOrderId)} className="rounded border border-slate-500 px-2 py-1 text-xs font-semibold">
              Dismiss
            </button>
          )}
        </p>
      )}
      <p className="mt-2 text-sm text-red-900 dark:text-red-200">{order.why}</p>
      {order.mayExplain && <MayExplain botId={order.botId} self={order.clientOrderId} link={order.mayExplain} />}
      <div className="mt-2">
        <IdCheck check={order.idCheck} />
      </div>
      <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-600 dark:text-slate-300">Decision</dt>
        <dd className="break-words">
          <span className="[overflow-wrap:anywhere]">{order.strategy}</span> · bar{" "}
          {/* As stored (it is part of the id): a line of its own on a phone rather than broken at "2026-12-". */}
          <span className="inline-block max-w-full break-all font-mono">{order.bar}</span>
        </dd>
        {/* `attempts` counts sends (docs/journal.md); the lookups after a timeout are in the history. */}
        <dt className="text-slate-600 dark:text-slate-300">Sends</dt>
        <dd data-testid="order-sends">
          {order.attempts}
          {lookups > 0 && (
            <span className="text-slate-600 dark:text-slate-300">
              , then {order.eventsTotal > order.events.length ? "at least " : ""}
              {lookups} lookup{lookups === 1 ? "" : "s"} (in the history)
            </span>
          )}
        </dd>
        <dt className="text-slate-600 dark:text-slate-300">Last error</dt>
        <dd className="break-words">{order.lastError ? <WrappingText text={order.lastError} /> : "none recorded"}</dd>
        <dt className="text-slate-600 dark:text-slate-300">Exchange id</dt>
        <dd className="font-mono [overflow-wrap:anywhere]">{order.exchangeOrderId ?? "none (never acknowledged)"}</dd>
        <dt className="text-slate-600 dark:text-slate-300">Filled</dt>
        <dd>{order.filledQty}</dd>
        <dt className="text-slate-600 dark:text-slate-300">Intent written</dt>
        <dd>
          <UtcTime iso={order.createdAt} />
        </dd>
        <dt className="text-slate-600 dark:text-slate-300">Last update</dt>
        <dd>
          <UtcTime iso={order.updatedAt} /> (version {order.version})
        </dd>
      </dl>
      <OrderHistory order={order} />
      <ResolveOrderActions
        clientOrderId={order.clientOrderId}
        version={order.version}
        state={order.state}
        filledQty={order.filledQty}
        canAct={canAct}
        onResolved={onResolved}
        onBusy={onBusy ? (busy, ok) => onBusy(order, busy, ok) : undefined}
      />
    </article>
  );
}
