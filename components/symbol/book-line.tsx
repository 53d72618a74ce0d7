import { DriftBadge } from "@/components/ui/drift-badge";
import { Notional } from "@/components/ui/notional";
import { DriftExplained } from "@/components/overview/drift-explained";
import { UtcTime } from "@/components/ui/utc-time";
import { driftSize, signedQty } from "@/lib/text/format";
import type { SymbolLine } from "@/lib/queries/symbol";
import { DriftingFor } from "@/components/overview/drifting-for";

const num = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 8 });

const driftBadge = {
  unknown_position: <DriftBadge drift="unknown_position" />,
  size_drift: <DriftBadge drift="size_drift" />,
  none: (
    <span className="inline-block rounded bg-slate-200 px-1.5 py-0.5 text-xs font-semibold text-slate-800 dark:bg-slate-700 dark:text-slate-100">in sync</span>
  ),
};

/**
 * The symbol's current book line: what the bot holds, what the exchange holds, and the gap.
 * `unsure`: the page's data is not current. `botOld`: nothing vouches for the bot now (STALE or
 * UNKNOWN), so the line is its last cycle's, however current the page is.
 */
export function BookLine({
  line,
  symbol,
  unsure,
  botOld = false,
  receivedAt,
}: {
  line: SymbolLine | null;
  symbol: string;
  unsure: boolean;
  botOld?: boolean;
  /** When the data arrived (the query's dataUpdatedAt): a drift's age keeps counting from it. */
  receivedAt?: number;
}) {
  if (!line) {
    return (
      <p className="rounded border border-dashed border-slate-400 p-3 text-sm" data-testid="book-line">
        No reconciliation has compared this symbol yet: only its orders are known.
      </p>
    );
  }
  const tone =
    line.drift === "unknown_position"
      ? "border-2 border-red-700 bg-red-50 dark:bg-red-950"
      : line.drift === "size_drift"
        ? "border-2 border-orange-600 bg-orange-50 dark:bg-orange-950"
        : "border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900";
  return (
    <section
      aria-labelledby="book-line-title"
      data-testid="book-line"
      data-drift={line.drift}
      className={`rounded-lg p-4 ${tone} ${unsure || botOld ? "outline-2 outline-dashed outline-slate-500" : ""}`}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        {/* Not current: the line is what the journal said when last read, and a symbol in sync then is not known to be in sync now. */}
        <h2 id="book-line-title" className="font-semibold">
          {unsure ? "Book when last read (not current)" : botOld ? "Book at the bot's last cycle (not current)" : "Book now"}
        </h2>
        {(unsure || botOld) && line.drift === "none" ? (
          <span data-testid="sync-state" data-state="unknown" className="text-xs italic text-slate-500 dark:text-slate-400">
            {unsure ? "unknown: in sync when last read" : "unknown: in sync at its last cycle"}
          </span>
        ) : (
          driftBadge[line.drift]
        )}
      </div>
      <dl className="mt-2 grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-slate-600 dark:text-slate-300">Ours</dt>
          <dd className="font-mono text-lg" data-testid="book-ours">
            {signedQty(line.ours)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-600 dark:text-slate-300">Theirs</dt>
          <dd className="font-mono text-lg" data-testid="book-theirs">
            {signedQty(line.theirs)}
          </dd>
        </div>
        <div>
          <dt className="text-slate-600 dark:text-slate-300">Difference</dt>
          <dd className="font-mono" data-testid="book-difference">
            {line.drift === "none" ? "0" : <span className="whitespace-nowrap">{driftSize(line.difference, line.steps)}</span>}
          </dd>
        </div>
        <div>
          <dt className="text-slate-600 dark:text-slate-300">Notional of the gap</dt>
          <dd className="font-mono" data-testid="book-notional">
            {line.drift === "none" ? "—" : <Notional size={line.difference} symbol={symbol} mark={line.markPrice} markAt={line.markAt} />}
          </dd>
        </div>
      </dl>
      <DriftExplained by={line.explainedBy} />
      <p className="mt-2 text-sm text-slate-700 dark:text-slate-200">
        As of the cycle at <UtcTime iso={line.at} />
        {line.driftSince && (
          <>
            {" "}
            · drifting for <DriftingFor line={line} receivedAt={receivedAt} unsure={unsure} botOld={botOld} />, since <UtcTime iso={line.driftSince} />
          </>
        )}{" "}
        · step {num(line.qtyStep)}
        {line.markPrice !== null && (
          <>
            {" "}
            · mark {num(line.markPrice)}
            {line.markAt && (
              <>
                {" "}
                from <UtcTime iso={line.markAt} />
              </>
            )}
          </>
        )}
      </p>
    </section>
  );
}
