import type { SymbolOrder } from "@/lib/queries/symbol";
import { OrderCard } from "./order-card";

/** The bot's orders on the symbol, newest first, a page at a time. */
export function OrderList({ orders, more, loadingMore, onMore }: { orders: SymbolOrder[]; more: boolean; loadingMore: boolean; onMore: () => void }) {
  if (orders.length === 0) return <p className="text-sm">The bot has placed no order on this symbol.</p>;
  return (
    <>
      <ol className="space-y-3" aria-label="Orders, newest first">
        {orders.map((o) => (
          <li key={o.clientOrderId}>
            <OrderCard order={o} />
          </li>
        ))}
      </ol>
      {more && (
        <button
          type="button"
          onClick={onMore}
          disabled={loadingMore}
          className="mt-3 rounded bg-slate-200 px-3 py-1.5 text-sm font-semibold hover:bg-slate-300 focus-visible:outline-2 disabled:opacity-60 dark:bg-slate-800 dark:hover:bg-slate-700"
        >
          {loadingMore ? "Loading…" : "Show older orders"}
        </button>
      )}
    </>
  );
}
