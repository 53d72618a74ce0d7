/**
 * The chart's key, as HTML so it wraps on a phone and reads as text. A breaker is the bot's, not the
 * symbol's: a trip on BNBUSDT is marked on BTCUSDT's chart too, which read as BTCUSDT tripping (a try-out).
 */
export function ChartLegend({ operatorMarks = false }: { operatorMarks?: boolean }) {
  const item = "flex items-center gap-1.5";
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700 dark:text-slate-200" aria-label="Chart key">
      <li className={item}>
        <span aria-hidden className="inline-block h-0.5 w-5 bg-sky-700 dark:bg-sky-300" /> ours (the bot&apos;s book)
      </li>
      <li className={item}>
        <span aria-hidden className="inline-block w-5 border-t-2 border-dashed border-violet-600 dark:border-violet-300" /> theirs (the exchange)
      </li>
      <li className={item}>
        <span aria-hidden className="inline-block size-3 bg-orange-600/40 dark:bg-orange-400/40" /> size drift
      </li>
      <li className={item}>
        <span aria-hidden className="inline-block size-3 bg-red-600/40 dark:bg-red-400/40" /> unknown position
      </li>
      <li className={item}>
        <span aria-hidden className="inline-block size-3 bg-slate-500/30 dark:bg-slate-400/30" /> not compared (no cycle compared the books)
      </li>
      <li className={item}>
        <span aria-hidden className="inline-block h-3 w-0.5 bg-red-700 dark:bg-red-300" /> the bot&apos;s breaker trip (whichever symbol caused it)
      </li>
      <li className={item}>
        <span aria-hidden className="inline-block h-3 w-0.5 bg-emerald-700 dark:bg-emerald-300" /> the bot&apos;s breaker clear
      </li>
      {/* An incident's chart also marks what operators did (a try-out asked what the dotted blue line was). */}
      {operatorMarks && (
        <>
          <li className={item}>
            <span aria-hidden className="inline-block h-3 border-l-2 border-dotted border-blue-700 dark:border-blue-300" /> an operator&apos;s acknowledgement
          </li>
          <li className={item}>
            <span aria-hidden className="inline-block h-3 border-l-2 border-dotted border-yellow-700 dark:border-yellow-300" /> a book correction
          </li>
        </>
      )}
    </ul>
  );
}
