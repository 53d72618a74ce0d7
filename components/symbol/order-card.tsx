import { UtcTime } from "@/components/ui/utc-time";
import { WrappingText } from "@/components/ui/wrapping-text";
import type { SymbolOrder } from "@/lib/queries/symbol";
import { visibleText } from "@/lib/text/visible-text";
import { spacedJson } from "@/lib/text/wrap";
import { eventRuns } from "@/lib/journal/event-runs";
import { RunCount, RunTime } from "@/components/ui/event-run";

const num = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 8 });

const stateTone: Record<SymbolOrder["class"], string> = {
  doubtful: "bg-red-700 text-white",
  live: "bg-sky-700 text-white",
  settled: "bg-slate-200 text-slate-900 dark:bg-slate-700 dark:text-slate-100",
};

/** One order: its decision, what the exchange made of it, and its history on demand. */
export function OrderCard({ order }: { order: SymbolOrder }) {
  const doubtful = order.class === "doubtful";
  const runs = eventRuns(order.events);
  return (
    <article
      aria-label={`${order.side} ${num(order.qty)}, ${order.state}, ${order.clientOrderId}`}
      data-testid="order"
      data-order-id={order.clientOrderId}
      data-state={order.state}
      data-class={order.class}
      className={`rounded-lg border p-3 text-sm ${
        doubtful ? "border-2 border-red-700 bg-red-50 dark:bg-red-950" : "border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900"
      }`}
    >
      <header className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className={`rounded px-1.5 py-0.5 text-xs font-bold uppercase ${stateTone[order.class]}`} data-testid="order-state">
          {order.state.replace("_", " ")}
        </span>
        {doubtful && <span className="text-xs font-bold uppercase text-red-800 dark:text-red-200">doubtful</span>}
        <span className="font-semibold">
          {order.side} {num(order.qty)}
        </span>
        <span className="min-w-0 break-all font-mono text-xs text-slate-600 dark:text-slate-300">{order.clientOrderId}</span>
      </header>
      <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-3 gap-y-0.5 sm:grid-cols-[max-content_1fr_max-content_1fr]">
        <dt className="text-slate-600 dark:text-slate-300">Filled</dt>
        <dd className="font-mono">
          {num(order.filledQty)} of {num(order.qty)}
        </dd>
        <dt className="text-slate-600 dark:text-slate-300">Avg price</dt>
        <dd className="font-mono">{order.avgPrice === null ? "—" : num(order.avgPrice)}</dd>
        <dt className="text-slate-600 dark:text-slate-300">Attempts</dt>
        <dd className="font-mono">{order.attempts}</dd>
        <dt className="text-slate-600 dark:text-slate-300">Strategy</dt>
        <dd className="break-all">{order.strategy}</dd>
        <dt className="text-slate-600 dark:text-slate-300">Created</dt>
        <dd>
          <UtcTime iso={order.createdAt} />
        </dd>
        <dt className="text-slate-600 dark:text-slate-300">Updated</dt>
        <dd>
          <UtcTime iso={order.updatedAt} />
        </dd>
        {order.lastError && (
          <>
            <dt className="text-slate-600 dark:text-slate-300">Last error</dt>
            <dd className="break-words text-red-800 sm:col-span-3 dark:text-red-200" data-testid="order-error">
              <WrappingText text={order.lastError} />
            </dd>
          </>
        )}
      </dl>
      <details className="mt-2" data-testid="order-events">
        {/* 24 px tall to a finger (20 px in a try-out), as every control on its own. */}
        <summary className="cursor-pointer py-0.5 font-semibold focus-visible:outline-2">
          Events ({order.events.length}
          {runs.length < order.events.length ? `, in ${runs.length} line${runs.length === 1 ? "" : "s"}` : ""})
        </summary>
        {/* Runs of the same event folded, as on /doubtful: 90 identical lookups made a phone page 12,000 px tall. */}
        <ol className="mt-1 space-y-1 border-l-2 border-slate-300 pl-3 dark:border-slate-600">
          {runs.map((run) => (
            <li key={run.event.id} data-testid="order-event" data-kind={run.event.kind}>
              <RunTime run={run} className="font-mono text-xs" /> <strong>{run.event.kind}</strong> by {run.event.actor}
              <RunCount run={run} />
              {run.event.detail !== "{}" && (
                <code className="block break-words text-xs text-slate-700 dark:text-slate-300">{visibleText(spacedJson(run.event.detail))}</code>
              )}
            </li>
          ))}
        </ol>
      </details>
    </article>
  );
}
