"use client";
import { DriftBadge } from "@/components/ui/drift-badge";
import Link from "next/link";
import { AcknowledgeDriftForm } from "@/components/actions/acknowledge-drift-form";
import { Notional } from "@/components/ui/notional";
import { UtcTime } from "@/components/ui/utc-time";
import { DriftExplained } from "./drift-explained";
import { driftSize, signedQty } from "@/lib/text/format";
import type { OverviewLine } from "@/lib/queries/overview";
import { visibleText } from "@/lib/text/visible-text";
import { DriftingFor } from "./drifting-for";
import { TAP_TARGET } from "@/components/ui/tap-target";

/**
 * `readAt`: set while the page's data is not current (lib/live/not-current.ts), when it was last
 * confirmed. A symbol in sync then is not known to be in sync now: it says when it was. `botOld`:
 * nothing vouches for its bot now (STALE or UNKNOWN, lib/breaker/bot-status.ts factsAreOld), so
 * its last cycle's "in sync" is dated by that cycle, however current the page is. Either way the
 * row says "unknown: in sync at 03:12:41 UTC" (the banner above says which, the title too): the
 * whole sentence made every row of a stale page two lines on a desktop, three on a phone (try-outs).
 */
function DriftCell({ line, readAt, botOld }: { line: OverviewLine; readAt: number | null; botOld: boolean }) {
  if (line.drift !== "none") return <DriftBadge drift={line.drift} />;
  if (readAt !== null)
    return (
      <span
        data-testid="sync-state"
        data-state="unknown"
        title="In sync when the console last read the journal: this page is not current"
        className="italic text-slate-500 dark:text-slate-400"
      >
        unknown: in sync at <UtcTime iso={new Date(readAt).toISOString()} />
      </span>
    );
  if (botOld)
    return (
      <span
        data-testid="sync-state"
        data-state="unknown"
        title="In sync at the bot's last cycle: nothing vouches for the bot now"
        className="italic text-slate-500 dark:text-slate-400"
      >
        unknown: in sync at <UtcTime iso={line.at} />
      </span>
    );
  return (
    <span data-testid="sync-state" data-state="in-sync" className="text-slate-600 dark:text-slate-300">
      in sync
    </span>
  );
}

// On a phone each row becomes a small card: the labels come from data-label, so there is one DOM
// and no horizontal scrolling. The label column grows past 8rem for a longer label ("Acknowledged")
// rather than letting it run into its value.
const cell =
  "px-2 py-1.5 sm:table-cell grid grid-cols-[minmax(8rem,max-content)_1fr] gap-2 before:font-semibold before:content-[attr(data-label)] sm:before:content-none";
// A symbol in sync is one line on a phone ("alpha BTCUSDT book +0.5 in sync"): a card per symbol
// made the phone overview over 4,000 px tall, burying the drifts under rows with nothing to do.
const syncCell = "px-2 py-1.5 sm:table-cell max-sm:inline-block max-sm:px-1";
const syncHidden = "px-2 py-1.5 max-sm:hidden sm:table-cell";

function AckCell({ line, canAct }: { line: OverviewLine; canAct: boolean }) {
  if (line.drift === "none") return <>—</>;
  return (
    <div className="space-y-1" data-testid="ack-cell">
      {line.ack ? (
        <p title={visibleText(line.ack.note)}>
          yes, by {line.ack.by} until <UtcTime iso={line.ack.expiresAt} />
        </p>
      ) : (
        <p className="font-semibold">no{line.ackLapsed ? ` (lapsed: ${line.ackLapsed})` : ""}</p>
      )}
      <AcknowledgeDriftForm line={line} canAct={canAct} />
    </div>
  );
}

/**
 * `unsure`: the page's data is not current; `readAt` is then when it was last confirmed (ms).
 * `oldBots`: the bots nothing vouches for now, whose lines are as of their last cycle.
 * `receivedAt`: when the data arrived (the query's dataUpdatedAt), from which a drift's age keeps counting.
 */
export function SymbolTable({
  lines,
  unsure,
  readAt,
  oldBots,
  canAct,
  receivedAt,
}: {
  lines: OverviewLine[];
  unsure: boolean;
  readAt: number;
  oldBots: ReadonlySet<string>;
  canAct: boolean;
  receivedAt: number | undefined;
}) {
  return (
    <table className="block w-full text-sm sm:table" data-testid="symbol-table">
      <caption className="sr-only">Each bot&apos;s book against the exchange&apos;s, per symbol</caption>
      <thead className="hidden sm:table-header-group">
        <tr className="border-b border-slate-300 text-left dark:border-slate-600">
          <th scope="col" className="px-2 py-1.5">
            Bot
          </th>
          <th scope="col" className="px-2 py-1.5">
            Symbol
          </th>
          <th scope="col" className="px-2 py-1.5 text-right">
            Ours
          </th>
          <th scope="col" className="px-2 py-1.5 text-right">
            Theirs
          </th>
          <th scope="col" className="px-2 py-1.5 text-right">
            Difference
          </th>
          <th scope="col" className="px-2 py-1.5 text-right">
            Notional
          </th>
          <th scope="col" className="px-2 py-1.5">
            Drift
          </th>
          <th scope="col" className="px-2 py-1.5">
            Drifting for
          </th>
          <th scope="col" className="px-2 py-1.5">
            Acknowledged
          </th>
        </tr>
      </thead>
      <tbody className="block sm:table-row-group">
        {lines.map((l) => {
          const inSync = l.drift === "none";
          const c = inSync ? syncCell : cell;
          return (
            <tr
              key={`${l.botId}/${l.symbol}`}
              data-testid="symbol-row"
              data-drift={l.drift}
              data-symbol={l.symbol}
              data-bot={l.botId}
              className={`mb-3 block rounded border sm:mb-0 ${inSync ? "max-sm:mb-2 max-sm:flex max-sm:flex-wrap max-sm:items-baseline max-sm:px-1" : ""} sm:table-row sm:rounded-none sm:border-0 sm:border-b ${
                l.drift === "unknown_position"
                  ? "border-red-700 bg-red-50 dark:bg-red-950"
                  : l.drift === "size_drift"
                    ? "border-orange-500 bg-orange-50 dark:bg-orange-950"
                    : "border-slate-200 dark:border-slate-700"
              } ${unsure ? "outline-2 outline-dashed outline-slate-500" : ""}`}
            >
              <td className={`${c} font-mono`} data-label="Bot">
                {l.botId}
                {/* A row in sync says "unknown" itself: on a phone, this too made it a line longer. */}
                {unsure && <span className={`ml-1 font-sans text-xs font-semibold ${inSync ? "max-sm:hidden" : ""}`}>(not current)</span>}
              </td>
              <td className={c} data-label="Symbol">
                <Link
                  href={`/bots/${encodeURIComponent(l.botId)}/symbols/${encodeURIComponent(l.symbol)}`}
                  className={`font-mono font-semibold underline ${TAP_TARGET}`}
                >
                  {l.symbol}
                </Link>
              </td>
              <td className={`${c} font-mono sm:text-right`} data-label="Ours">
                {inSync && <span className="font-sans sm:hidden">book </span>}
                {signedQty(l.ours)}
              </td>
              <td className={`${inSync ? syncHidden : cell} font-mono sm:text-right`} data-label="Theirs">
                {signedQty(l.theirs)}
              </td>
              <td className={`${inSync ? syncHidden : cell} font-mono sm:text-right`} data-label="Difference">
                {inSync ? "0" : <span className="whitespace-nowrap">{driftSize(l.difference, l.steps)}</span>}
              </td>
              <td className={`${inSync ? syncHidden : cell} font-mono sm:text-right`} data-label="Notional">
                {inSync ? "—" : <Notional size={l.difference} symbol={l.symbol} mark={l.markPrice} markAt={l.markAt} />}
              </td>
              <td className={c} data-label="Drift">
                <DriftCell line={l} readAt={unsure ? readAt : null} botOld={oldBots.has(l.botId)} />
                {/* On a phone, the whole card's width: in the label's column it read 12 characters a line. */}
                {l.explainedBy && (
                  <div className="max-sm:col-span-2" data-testid="drift-explained-row">
                    <DriftExplained by={l.explainedBy} />
                  </div>
                )}
              </td>
              <td className={`${inSync ? syncHidden : cell}`} data-label="Drifting for">
                {inSync ? "—" : <DriftingFor line={l} receivedAt={receivedAt} unsure={unsure} botOld={oldBots.has(l.botId)} />}
              </td>
              <td className={`${inSync ? syncHidden : cell}`} data-label="Acknowledged">
                <AckCell line={l} canAct={canAct} />
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
