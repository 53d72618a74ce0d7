import Link from "next/link";
import { memo } from "react";
import { UtcTime } from "@/components/ui/utc-time";
import { WrappingText } from "@/components/ui/wrapping-text";
import { breakersViewToQuery } from "@/lib/url-state/breakers";
import type { BreakerBotView } from "@/lib/queries/breakers";
import { BreakerEventItem } from "./breaker-event-item";
import { HaltedFor } from "./halted-for";
import { ReviewAndClearLink } from "@/components/bot/review-and-clear-link";
import { haltCauseText } from "@/lib/breaker/halt-cause";
import { useCanAct } from "@/components/auth/can-act";
import { StatusBadge, statusBadgeStyle } from "@/components/ui/status-badge";

/**
 * A bot's breaker in a word or three, as its section's badge and the page's list of bots say it:
 * "HALTED" now, or "HALTED when last read" while the page is not current (as the overview's card
 * says it; HALTED beside an UNKNOWN badge read as a contradiction to a try-out), and "unknown: not
 * halted when last read" then, since a breaker that was not halted is no news of now.
 */
export const breakerWord = (b: BreakerBotView["breaker"], unsure = false) =>
  b === null ? "NO BREAKER ROW" : unsure ? (b.halted ? "HALTED when last read" : "unknown: not halted when last read") : b.halted ? "HALTED" : "not halted";

/** The id of a bot's heading on /breakers, which the list of bots at the top links to. */
export const breakersHeadingId = (botId: string) => `breakers-${botId}`;

/**
 * One bot: its breaker now (a halt counting up), then its trips and clears, newest first. Memoised:
 * a poll that changed nothing for this bot (the query keeps unchanged data's identity) renders nothing.
 */
export const BotBreakers = memo(function BotBreakers({ bot, unsure, paged }: { bot: BreakerBotView; unsure: boolean; paged: boolean }) {
  const b = bot.breaker;
  const headingId = breakersHeadingId(bot.botId);
  const canAct = useCanAct();
  // While the page is not current the breaker's words say it (breakerWord); otherwise a bot nothing
  // vouches for gets its STALE or UNKNOWN beside its breaker.
  const botNow = unsure ? null : (bot.vouch?.now ?? null);
  // The row is what the bot last wrote: a bot that stopped, or tripped and could not write it,
  // still reads "not halted" (a try-out saw it in plain grey beside a STALE bot). Under a halt, after it.
  const vouchLine = bot.vouch && (
    <p className="mt-2 text-sm" data-testid="bot-now-why">
      <strong>{bot.vouch.now === "stale" ? "STALE" : "UNKNOWN"}:</strong> <WrappingText text={bot.vouch.alarms.join("; ")} />.{" "}
      {b?.halted
        ? "The bot may have stopped as well as halted."
        : "This breaker is as the bot last wrote it: a bot that stopped, or tripped and could not write it, reads the same."}
    </p>
  );
  return (
    <section aria-labelledby={headingId} data-testid="bot-breakers" data-bot={bot.botId} className="space-y-3">
      <div
        className={`rounded-lg border p-4 ${b?.halted ? "border-2 border-red-700 bg-red-50 text-red-950 dark:bg-red-950 dark:text-red-50" : "border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900"} ${unsure ? "opacity-70" : ""}`}
      >
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id={headingId} className="break-all font-mono text-lg font-semibold">
            {bot.botId}
          </h2>
          <span className="inline-flex flex-wrap items-center gap-1">
            <span
              data-testid="breaker-now"
              data-halted={b ? String(b.halted) : "unknown"}
              // "unknown: not halted when last read" in UNKNOWN's dashed amber, as the overview draws UNKNOWN: never a quiet grey.
              className={`rounded text-sm font-bold tracking-wide ${
                b === null
                  ? "bg-slate-300 px-2 py-0.5 text-slate-900 dark:bg-slate-600 dark:text-white"
                  : b.halted
                    ? "bg-red-700 px-2 py-0.5 text-white"
                    : unsure
                      ? statusBadgeStyle("unknown")
                      : "bg-slate-700 px-2 py-0.5 text-white"
              }`}
            >
              {breakerWord(b, unsure)}
            </span>
            {botNow && (
              <span data-testid="bot-now">
                <StatusBadge status={botNow} />
              </span>
            )}
          </span>
        </div>
        {!b?.halted && vouchLine}
        {b === null ? (
          <p className="mt-2 text-sm">
            This bot has no row in <code>breakers</code>, so nobody can say whether it may trade. A bot writes that row when it starts.
          </p>
        ) : b.halted ? (
          <p className="mt-2 whitespace-pre-line break-words text-sm" data-testid="halted-for">
            <strong>
              {unsure ? "Halted when last read, for" : "Halted for"} <HaltedFor since={b.changedAt} />
            </strong>
            :{" "}
            <WrappingText
              text={haltCauseText({
                reason: b.reason,
                inSyncSince: b.causeInSyncSince,
                ordersSettled: b.causeOrdersSettled,
                changedBy: b.changedBy,
                changedAt: b.changedAt,
              })}
            />
            <br />
            {/* "halted at", not "since": the cause above may end in its own "settled at …". */}
            halted at <UtcTime iso={b.changedAt} className="font-mono" /> by <span className="font-mono">{b.changedBy}</span>
            <br />
            <ReviewAndClearLink botId={bot.botId} canAct={canAct} named />
          </p>
        ) : (
          <p className="mt-2 whitespace-pre-line break-words text-sm text-slate-700 dark:text-slate-200">
            Last changed <UtcTime iso={b.changedAt} className="font-mono" /> by <span className="font-mono">{b.changedBy}</span>
            {b.reason ? (
              <>
                : <WrappingText text={b.reason} />
              </>
            ) : (
              ""
            )}
            .
          </p>
        )}
        {b?.halted && vouchLine}
      </div>

      {bot.events.length === 0 ? (
        <p className="rounded border border-dashed border-slate-400 p-4 text-sm" data-testid="no-breaker-events">
          {paged
            ? "No older trips or clears."
            : `${bot.botId} has never tripped. A bot trips its breaker when its books drift from the exchange's or an order's fate cannot be settled; every trip and clear will be listed here with its cause.`}
        </p>
      ) : (
        <ol className="space-y-2" aria-label={`Trips and clears of ${bot.botId}, newest first`}>
          {bot.events.map((e) => (
            <li key={e.id}>
              <BreakerEventItem event={e} unsure={unsure} />
            </li>
          ))}
        </ol>
      )}
      {bot.olderBefore !== null && (
        <p className="text-sm">
          <Link href={`/breakers${breakersViewToQuery({ bot: bot.botId, before: bot.olderBefore })}`} className="font-semibold underline">
            Older trips and clears of {bot.botId}
          </Link>
        </p>
      )}
    </section>
  );
});
