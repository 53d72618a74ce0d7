"use client";
import Link from "next/link";
import { AcknowledgeDriftForm } from "@/components/actions/acknowledge-drift-form";
import { Notional } from "@/components/ui/notional";
import { UtcTime } from "@/components/ui/utc-time";
import { DriftExplained } from "./drift-explained";
import { driftSize, formatDuration, signedQty } from "@/lib/text/format";
import type { OverviewLine } from "@/lib/queries/overview";
import { visibleText } from "@/lib/text/visible-text";

function DriftCell({ line }: { line: OverviewLine }) {
  if (line.drift === "unknown_position")
    return <span className="inline-block rounded bg-red-700 px-1.5 py-0.5 text-xs font-bold uppercase text-white">Unknown position</span>;
  if (line.drift === "size_drift")
    return <span className="inline-block rounded bg-orange-700 px-1.5 py-0.5 text-xs font-bold uppercase text-white">Size drift</span>;
  return <span className="text-slate-600 dark:text-slate-300">in sync</span>;
}

// On a phone each row becomes a small card: the labels come from data-label, so there is one DOM
// and no horizontal scrolling.
const cell = "px-2 py-1.5 sm:table-cell grid grid-cols-[7rem_1fr] gap-2 before:font-semibold before:content-[attr(data-label)] sm:before:content-none";

function AckCell({ line, canAct }: { line: OverviewLine; canAct: boolean }) {
  if (line.drift === "none") return <>—</>;
  return (
    <div className="space-y-1" data-testid="ack-cell">
      {line.ack ? (
        <p title={visibleText(line.ack.note)}>
          yes, by {line.ack.by.replace(/^operator:/, "")} until <UtcTime iso={line.ack.expiresAt} />
        </p>
      ) : (
        <p className="font-semibold">no{line.ackLapsed ? ` (lapsed: ${line.ackLapsed})` : ""}</p>
      )}
      <AcknowledgeDriftForm line={line} canAct={canAct} />
    </div>
  );
}

export function SymbolTable({ lines, unsure, canAct }: { lines: OverviewLine[]; unsure: boolean; canAct: boolean }) {
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
        {lines.map((l) => (
          <tr
            key={`${l.botId}/${l.symbol}`}
            data-testid="symbol-row"
            data-drift={l.drift}
            data-symbol={l.symbol}
            data-bot={l.botId}
            className={`mb-3 block rounded border sm:mb-0 sm:table-row sm:rounded-none sm:border-0 sm:border-b ${
              l.drift === "unknown_position"
                ? "border-red-700 bg-red-50 dark:bg-red-950"
                : l.drift === "size_drift"
                  ? "border-orange-500 bg-orange-50 dark:bg-orange-950"
                  : "border-slate-200 dark:border-slate-700"
            } ${unsure ? "outline-2 outline-dashed outline-slate-500" : ""}`}
          >
            <td className={`${cell} font-mono`} data-label="Bot">
              {l.botId}
              {unsure && <span className="ml-1 font-sans text-xs font-semibold">(not current)</span>}
            </td>
            <td className={cell} data-label="Symbol">
              <Link href={`/bots/${encodeURIComponent(l.botId)}/symbols/${encodeURIComponent(l.symbol)}`} className="font-mono font-semibold underline">
                {l.symbol}
              </Link>
            </td>
            <td className={`${cell} font-mono sm:text-right`} data-label="Ours">
              {signedQty(l.ours)}
            </td>
            <td className={`${cell} font-mono sm:text-right`} data-label="Theirs">
              {signedQty(l.theirs)}
            </td>
            <td className={`${cell} font-mono sm:text-right`} data-label="Difference">
              {l.drift === "none" ? "0" : driftSize(l.difference, l.steps)}
            </td>
            <td className={`${cell} font-mono sm:text-right ${l.drift === "none" ? "max-sm:hidden" : ""}`} data-label="Notional">
              {l.drift === "none" ? "—" : <Notional size={l.difference} symbol={l.symbol} mark={l.markPrice} markAt={l.markAt} />}
            </td>
            <td className={cell} data-label="Drift">
              <DriftCell line={l} />
              <DriftExplained by={l.explainedBy} />
            </td>
            <td className={`${cell} ${l.drift === "none" ? "max-sm:hidden" : ""}`} data-label="Drifting for">
              {l.drift === "none" ? "—" : formatDuration(l.driftForMs)}
            </td>
            <td className={`${cell} ${l.drift === "none" ? "max-sm:hidden" : ""}`} data-label="Acknowledged">
              <AckCell line={l} canAct={canAct} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
