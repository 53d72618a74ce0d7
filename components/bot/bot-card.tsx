"use client";
import { WrappingText } from "@/components/ui/wrapping-text";
import Link from "next/link";
import { StatusBadge } from "@/components/ui/status-badge";
import { UtcTime } from "@/components/ui/utc-time";
import { formatAgo } from "@/lib/text/format";
import { cutAtWord } from "@/lib/text/sentence";
import { factsAreOld, type BotStatus } from "@/lib/breaker/bot-status";
import { changedByOperator, haltCauseText } from "@/lib/breaker/halt-cause";
import type { BotSummary } from "@/lib/queries/bots";
import type { OverviewBot } from "@/lib/queries/overview";
import { useLiveAge } from "@/components/live/use-now";
import { useCanAct } from "@/components/auth/can-act";
import { HaltNowForm } from "./halt-now-form";
import { ReviewAndClearLink } from "./review-and-clear-link";
import { TAP_TARGET } from "@/components/ui/tap-target";
import { comparedTheBooks } from "@/lib/reconcile/current-line";

type CardBot = BotSummary & {
  doubtfulOrders?: number;
  symbolsInDrift?: number;
  unknownPositions?: number;
  source?: string;
  lastKnownHalt?: OverviewBot["lastKnownHalt"];
  lastReadAt?: string;
  journalUnread?: true;
};

/** A halt's reason on the overview's card, at most about this long (whole on the bot's page). */
const CARD_REASON_CHARS = 200;

/** What a card says of a fact its unreadable journal holds: unknown, never "never" or "none". */
const UNREAD = "unknown (its journal cannot be read)";

/**
 * One bot. `unsure` is set when the page's own data is not current (a failed poll, or data older
 * than lib/live/not-current.ts allows): then nothing on the card may read as running, and the
 * breaker reads as it was when last read. `receivedAt` is when the data arrived (the query's
 * dataUpdatedAt): the ages keep counting from it while no new answer comes.
 */
export function BotCard({
  bot,
  unsure = false,
  receivedAt,
  haltStory,
}: {
  bot: CardBot;
  unsure?: boolean;
  receivedAt?: number;
  /**
   * On the bot's own page, where a link to review it would lead back to the same page: the incident
   * story of its halt instead (null when no trip records the halt, so no story tells it).
   */
  haltStory?: { id: string; href: string } | null;
}) {
  const heartbeatAge = useLiveAge(bot.heartbeatAgeMs, receivedAt);
  const reconciledAge = useLiveAge(bot.lastReconciliation?.ageMs ?? null, receivedAt);
  const comparedAge = useLiveAge(bot.lastCompared?.ageMs ?? null, receivedAt);
  // A skipped or failed last cycle compared nothing: when the books last were is what counts up to UNKNOWN.
  const notCompared = bot.lastReconciliation !== null && !comparedTheBooks(bot.lastReconciliation.outcome);
  const halted = bot.breaker?.halted ?? false;
  const canAct = useCanAct();
  // The page cannot vouch for the bot: UNKNOWN (the console cannot tell), not STALE, which says the
  // bot may have stopped when only the page's answers had (a try-out, with the console stopped).
  const status: BotStatus = unsure && bot.status === "running" ? "unknown" : bot.status;
  // A card that is not running because nothing vouches for it now dates its last cycle's outcome.
  // A halted bot keeps its HALTED badge when its heartbeat goes stale: its facts are as old all the same.
  const asOfThen = unsure || factsAreOld({ status, haltedAlso: bot.haltedAlso });
  /**
   * After a fact that is not known now: " (when last read)" while the page is not current; " (at its
   * last cycle)" when the page is current but nothing vouches for the bot, as its symbols' rows say
   * ("unknown: in sync at its last cycle"). "when last read" on a current page read as a stale page.
   */
  const then = unsure ? " (when last read)" : asOfThen ? " (at its last cycle)" : "";
  return (
    <article
      aria-labelledby={`bot-${bot.botId}`}
      data-testid="bot-card"
      data-bot={bot.botId}
      className={`rounded-lg border bg-white p-4 shadow-sm dark:bg-slate-900 ${halted ? "border-2 border-red-700" : "border-slate-200 dark:border-slate-700"}`}
    >
      <header className="flex flex-wrap items-center justify-between gap-2">
        <h2 id={`bot-${bot.botId}`} className="break-all font-mono text-lg font-semibold">
          <Link href={`/bots/${encodeURIComponent(bot.botId)}`} className={`underline-offset-4 hover:underline ${TAP_TARGET}`}>
            {bot.botId}
          </Link>
        </h2>
        <StatusBadge status={status} also={bot.haltedAlso} />
      </header>
      {/* With several journals, which one the bot writes (what to check when it goes wrong); a bot
          whose journal cannot be read has no exchange or id prefix to show. */}
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-300" data-testid="bot-card-where">
        {[
          bot.source ? (
            <span key="source">
              journal <span className="font-mono">{bot.source}</span>
            </span>
          ) : null,
          bot.exchange ? <span key="exchange">{bot.exchange}</span> : null,
          bot.clientIdPrefix ? (
            // Not "ids alpha-…": an ellipsis on a card reads as text cut off (a try-out).
            <span key="ids" title={`Every client order id of ${bot.botId} starts with ${bot.clientIdPrefix}-`}>
              order ids start <span className="font-mono">{bot.clientIdPrefix}-</span>
            </span>
          ) : null,
        ]
          .filter((part) => part !== null)
          .flatMap((part, i) => (i === 0 ? [part] : [" · ", part]))}
      </p>

      {halted && bot.breaker && (
        <p className="mt-3 rounded bg-red-50 p-2 text-sm text-red-900 dark:bg-red-950 dark:text-red-100" data-testid="halt-reason">
          <strong>Halted:</strong>{" "}
          <WrappingText
            text={haltCauseText({
              // The overview's card keeps a long reason to a few lines (a runbook pasted into a halt
              // filled a phone's screen); the bot's own page (haltStory given) tells it whole.
              reason:
                haltStory === undefined && bot.breaker.reason !== null
                  ? cutAtWord(bot.breaker.reason, CARD_REASON_CHARS, "in full on its page")
                  : bot.breaker.reason,
              inSyncSince: bot.breaker.causeInSyncSince,
              ordersSettled: bot.breaker.causeOrdersSettled,
              changedBy: bot.breaker.changedBy,
              changedAt: bot.breaker.changedAt,
            })}
          />
          <br />
          {/* A hand-made halt's text already says who and when. */}
          {!changedByOperator(bot.breaker.changedBy) && (
            <>
              halted at <UtcTime iso={bot.breaker.changedAt} /> by {bot.breaker.changedBy}
              <br />
            </>
          )}
          {haltStory === undefined ? (
            <ReviewAndClearLink botId={bot.botId} canAct={canAct} />
          ) : haltStory === null ? (
            <span className="mt-1 inline-block" data-testid="halt-story-none">
              No trip is recorded for this halt in the journal, so no incident tells its story.
            </span>
          ) : (
            <Link href={haltStory.href} className="mt-1 inline-block py-1 font-semibold underline" data-testid="halt-story">
              The story of this halt (incident <span className="font-mono [overflow-wrap:anywhere]">{haltStory.id}</span>)
            </Link>
          )}
        </p>
      )}
      {canAct && bot.breaker && <HaltNowForm botId={bot.botId} version={bot.breaker.version} halted={halted} />}

      <dl className="mt-3 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-600 dark:text-slate-300">Heartbeat</dt>
        {/* The server renders its own now; the browser's differs by the load time. */}
        <dd data-testid="heartbeat-age" suppressHydrationWarning>
          {bot.heartbeatAt ? (
            <>
              <span className="whitespace-nowrap" suppressHydrationWarning>
                {formatAgo(heartbeatAge)}
              </span>{" "}
              · <UtcTime iso={bot.heartbeatAt} />
            </>
          ) : bot.journalUnread ? (
            UNREAD
          ) : (
            "never"
          )}
        </dd>
        <dt className="text-slate-600 dark:text-slate-300">Breaker</dt>
        <dd data-testid="breaker-state">
          {bot.lastKnownHalt ? (
            "halted when last read (its journal cannot be read now)"
          ) : bot.journalUnread ? (
            bot.lastReadAt ? (
              <>
                unknown: not halted when its journal was last read, at <UtcTime iso={bot.lastReadAt} /> (it cannot be read now)
              </>
            ) : (
              UNREAD
            )
          ) : bot.breaker === null ? (
            "unknown (no breaker row)"
          ) : unsure ? (
            // The page's data is not current: the breaker as it was read, never as a fact of now.
            <>
              {halted ? "halted" : "unknown: not halted"} when last read
              {receivedAt ? (
                <>
                  , at <UtcTime iso={new Date(receivedAt).toISOString()} />
                </>
              ) : null}{" "}
              (not current)
            </>
          ) : halted ? (
            "halted"
          ) : asOfThen ? (
            // What the bot last wrote: a bot that stopped, or tripped and could not write it, reads the same.
            "unknown: not halted as the bot last wrote it"
          ) : (
            "not halted"
          )}
        </dd>
        <dt className="text-slate-600 dark:text-slate-300">Reconciled</dt>
        {/* One line on the overview, where cards sit side by side: a skip's why after the age,
            cut with an ellipsis (whole in its title and on the bot's page). Wrapped, every skip grew
            the card by one line, then two as the ages grew, and shrank it again (a try-out). Not
            while nothing vouches for the bot: "(when last read; not current)" must not be cut. */}
        <dd
          data-testid="reconciled"
          className={haltStory === undefined && !asOfThen ? "min-w-0 truncate" : undefined}
          title={haltStory === undefined && notCompared && bot.notComparedWhy ? bot.notComparedWhy : undefined}
          suppressHydrationWarning
        >
          {bot.lastReconciliation ? (
            asOfThen ? (
              // Not vouched for now: the outcome is a fact of its cycle's time, never of the present.
              <>
                {bot.lastReconciliation.outcome} at <UtcTime iso={bot.lastReconciliation.at} />,{" "}
                <span className="whitespace-nowrap" suppressHydrationWarning>
                  {formatAgo(reconciledAge)}
                </span>
                {unsure ? " (when last read; not current)" : ""}
              </>
            ) : (
              <>
                {bot.lastReconciliation.outcome},{" "}
                <span className="whitespace-nowrap" suppressHydrationWarning>
                  {formatAgo(reconciledAge)}
                </span>
                {notCompared && bot.notComparedWhy && (
                  // Why the books were not compared: a running card said nothing, and a halted one grew
                  // a bullet at every skip (a try-out). On the overview's one line, "2 in flight": "2
                  // orders in flight" was cut to "(2 orders in fli…" at every width (a second try-out).
                  <span data-testid="not-compared-why">
                    {" "}
                    (
                    <WrappingText
                      text={
                        haltStory === undefined && bot.lastReconciliation.outcome === "skipped" && (bot.lastReconciliation.ordersInFlight ?? 0) > 0
                          ? `${bot.lastReconciliation.ordersInFlight} in flight`
                          : bot.notComparedWhy
                      }
                    />
                    )
                  </span>
                )}
              </>
            )
          ) : bot.journalUnread ? (
            UNREAD
          ) : (
            "never"
          )}
        </dd>
        {/* Always there, so a skipped cycle changes words, not the card's height: the age that counts
            up to UNKNOWN (DRIFTWATCH_RECONCILIATION_STALE_MS) when cycles stop comparing the books. */}
        {!bot.journalUnread && (
          <>
            <dt className="text-slate-600 dark:text-slate-300">Compared</dt>
            <dd data-testid="compared-age" suppressHydrationWarning>
              {bot.lastCompared ? (
                <span className="whitespace-nowrap" suppressHydrationWarning>
                  {formatAgo(comparedAge)}
                </span>
              ) : (
                "never"
              )}
            </dd>
          </>
        )}
        {bot.doubtfulOrders !== undefined && (
          <>
            <dt className="text-slate-600 dark:text-slate-300">Doubtful</dt>
            <dd data-testid="doubtful-count">
              {bot.journalUnread ? (
                UNREAD
              ) : bot.doubtfulOrders > 0 ? (
                <Link
                  href={`/doubtful?bot=${encodeURIComponent(bot.botId)}`}
                  className={`font-semibold text-red-700 underline dark:text-red-300 ${TAP_TARGET}`}
                >
                  {bot.doubtfulOrders} order{bot.doubtfulOrders === 1 ? "" : "s"}
                </Link>
              ) : (
                `none${then}`
              )}
            </dd>
          </>
        )}
        {bot.symbolsInDrift !== undefined && (
          <>
            <dt className="text-slate-600 dark:text-slate-300">In drift</dt>
            <dd data-testid="drift-count">
              {bot.journalUnread
                ? UNREAD
                : bot.symbolsInDrift === 0
                  ? `no symbol${then}`
                  : `${bot.symbolsInDrift} symbol${bot.symbolsInDrift === 1 ? "" : "s"}${bot.unknownPositions ? `, ${bot.unknownPositions} unknown position${bot.unknownPositions === 1 ? "" : "s"}` : ""}${then}`}
            </dd>
          </>
        )}
      </dl>

      {bot.reasons.length > 0 && (
        <ul className="mt-3 list-outside list-disc pl-5 text-sm text-slate-700 dark:text-slate-200" aria-label={`Why ${bot.botId} is not shown as running`}>
          {bot.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      )}
    </article>
  );
}
