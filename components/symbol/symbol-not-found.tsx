import Link from "next/link";
import { symbolPath } from "@/lib/query-options/symbol";

/** A bot or symbol this journal does not know: say which, and where to go instead. */
export function SymbolNotFound({ botId, symbol, reason, symbols }: { botId: string; symbol: string; reason: "no_bot" | "no_symbol"; symbols: string[] }) {
  return (
    <section aria-labelledby="symbol-not-found" className="space-y-3 rounded-lg border border-slate-300 bg-white p-5 dark:border-slate-700 dark:bg-slate-900">
      <h1 id="symbol-not-found" className="text-xl font-bold">
        {reason === "no_bot" ? "No such bot" : "No such symbol for this bot"}
      </h1>
      <p data-testid="not-found-message">
        {reason === "no_bot" ? (
          <>
            There is no bot <span className="break-all font-mono font-semibold">{botId}</span> in this journal.
          </>
        ) : (
          <>
            Bot <span className="break-all font-mono font-semibold">{botId}</span> has never reconciled or ordered{" "}
            <span className="break-all font-mono font-semibold">{symbol}</span>.
          </>
        )}
      </p>
      {symbols.length > 0 && (
        <p>
          Its symbols:{" "}
          {symbols.map((s, i) => (
            <span key={s}>
              {i > 0 && ", "}
              <Link href={symbolPath(botId, s)} className="font-mono underline">
                {s}
              </Link>
            </span>
          ))}
        </p>
      )}
      <p>
        <Link href="/" className="font-semibold underline">
          Back to the bots
        </Link>
      </p>
    </section>
  );
}
