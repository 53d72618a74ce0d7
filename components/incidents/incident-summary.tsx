import Link from "next/link";
import { UtcTime } from "@/components/ui/utc-time";
import { DurationWords } from "@/components/ui/duration-text";
import { driftLine, orderPrunedWords, refusedLine, summaryDurations, type PrunedFacts } from "@/lib/incidents/postmortem";
import type { IncidentStory } from "@/lib/incidents/story";
import { visibleText } from "@/lib/text/visible-text";
import { formatNumber } from "@/lib/text/format";

/**
 * One of the three durations. On a phone the label and the value share a line when both fit, and
 * the value moves under the label as a whole when they do not; "114 d 23 h" never breaks inside.
 */
function Duration({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="flex flex-wrap items-baseline justify-between gap-x-2 rounded border border-slate-300 px-2 py-1 sm:block sm:p-2 dark:border-slate-600">
      <dt className="text-xs font-semibold uppercase text-slate-700 dark:text-slate-200">{label}</dt>
      <dd className="ml-auto text-right font-bold sm:ml-0 sm:text-left sm:text-lg" data-testid={testId}>
        <DurationWords text={value} />
      </dd>
    </div>
  );
}

/** The incident in a few lines: what halted the bot, the order behind it, how long each step took, who did what and why. */
export function IncidentSummary({ story, readAt, pruned }: { story: IncidentStory; readAt: string; pruned: PrunedFacts }) {
  const d = summaryDurations(story, new Date(readAt), pruned);
  const refused = refusedLine(story);
  const o = story.order;
  return (
    <section aria-labelledby="summary" data-testid="incident-summary" className="space-y-3">
      <h2 id="summary" className="sr-only">
        Summary
      </h2>
      <dl className="space-y-1 text-sm">
        <div>
          <dt className="inline font-semibold">Cause: </dt>
          <dd className="inline" data-testid="incident-cause">
            {story.cause.byHand ? (
              <>
                halted by hand by <span className="font-mono">{story.cause.haltedBy}</span>: {visibleText(story.cause.reason)}
              </>
            ) : (
              <>
                {visibleText(story.cause.reason)}
                {story.cause.reconciliationId !== null && ` (reconciliation #${story.cause.reconciliationId})`}
              </>
            )}
            {story.cause.drift && (
              <>
                {" · "}
                <span className="font-mono">{driftLine(story.cause.drift)}</span>
              </>
            )}
          </dd>
        </div>
        <div>
          <dt className="inline font-semibold">Order behind it: </dt>
          <dd className="inline" data-testid="incident-order">
            {o ? (
              <>
                <span className="font-mono [overflow-wrap:anywhere]">{o.clientOrderId}</span> {o.side} {formatNumber(o.qty)} {o.symbol},{" "}
                {o.settledAt ? (
                  <>
                    settled as {o.settledAs}
                    {o.settledPrice !== null && ` at ${formatNumber(o.settledPrice)}`} by <span className="font-mono">{o.settledBy}</span> at{" "}
                    <UtcTime iso={o.settledAt} />
                  </>
                ) : (
                  `not settled (${o.state} now)`
                )}
              </>
            ) : pruned.order ? (
              <span data-testid="incident-order-pruned" className="[overflow-wrap:anywhere]">
                {orderPrunedWords(pruned.order)}
              </span>
            ) : (
              "none found"
            )}
          </dd>
        </div>
      </dl>
      <dl className="grid grid-cols-1 gap-1 sm:grid-cols-3 sm:gap-2">
        <Duration label="To first operator action" value={d.firstAction} testId="time-to-first-action" />
        <Duration label="To settle the doubtful order" value={d.settle} testId="time-to-settle" />
        <Duration label="To clear" value={d.clear} testId="time-to-clear" />
      </dl>
      <div>
        <h3 className="font-bold">Who did what</h3>
        {story.steps.length === 0 ? (
          <p className="text-sm" data-testid="no-steps">
            {refused ? `No action applied yet: ${refused}` : "Nobody has acted yet."}{" "}
            {story.status === "open" && (
              <Link href={`/bots/${encodeURIComponent(story.botId)}`} className="font-semibold underline">
                Review and clear {story.botId}
              </Link>
            )}
          </p>
        ) : (
          <ol className="space-y-1 text-sm" data-testid="incident-steps">
            {story.steps.map((s) => (
              <li key={s.id} data-testid="incident-step" data-mark={s.mark}>
                <UtcTime iso={s.at} className="font-mono">
                  {new Date(s.at).toISOString().slice(11, 19)}
                </UtcTime>{" "}
                <span className="font-mono">{s.actor}</span> {visibleText(s.what)}
                {s.note && (
                  <blockquote className="ml-4 border-l-2 border-slate-400 pl-2 whitespace-pre-wrap text-slate-800 dark:text-slate-100" data-testid="step-note">
                    {visibleText(s.note)}
                  </blockquote>
                )}
              </li>
            ))}
          </ol>
        )}
        {story.steps.length > 0 && refused && (
          <p className="mt-1 text-sm" data-testid="refused-attempts">
            Also {refused}
          </p>
        )}
      </div>
    </section>
  );
}
