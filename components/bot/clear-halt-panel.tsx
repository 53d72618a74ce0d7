"use client";
import { NotCurrentShown } from "@/components/journal/journal-problem-shown";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { ActionMessage, buttonClass, FieldError, fieldErrors, inputClass, ViewerNote } from "@/components/actions/action-message";
import type { SignedInViewer } from "@/lib/auth/roles";
import { useKeptForm } from "@/components/actions/use-kept-form";
import { ClearedSilencesNote } from "@/components/actions/cleared-silences-note";
import { NotCurrentNote } from "@/components/actions/not-current-note";
import { BotCard } from "@/components/bot/bot-card";
import { factsAreOld } from "@/lib/breaker/bot-status";
import { AlarmBanner } from "@/components/live/alarm-banner";
import { LiveStatus } from "@/components/live/live-status";
import { useLiveUpdatedAt } from "@/components/live/use-live-updated-at";
import { useNotCurrent } from "@/components/live/use-not-current";
import { notUpdatedWords } from "@/lib/live/not-current";
import { useLiveAge } from "@/components/live/use-now";
import { UtcTime } from "@/components/ui/utc-time";
import { approveClearAction, clearHaltAction } from "@/lib/actions/server";
import { heartbeatItem, type UnacknowledgedDrift } from "@/lib/breaker/clear-checklist";
import { BookSection } from "./book-section";
import { DurationWords } from "@/components/ui/duration-text";
import { EndedDriftForm } from "./ended-drift-form";
import { botClearQuery } from "@/lib/query-options/bot-clear";
import { signedQty } from "@/lib/text/format";
import { visibleText } from "@/lib/text/visible-text";
import { incidentIdText, incidentStoryHref } from "@/lib/url-state/incidents";

/**
 * The bot, its live clear checklist, and the clear form. The breaker version of the halt the
 * operator saw is what the form sends: the version the page loaded with, or, when the bot was running
 * then, the version of the halt as this panel first showed it (the operator's own Halt now, or a
 * trip that came in while they watched). If the breaker moves after that, the clear is refused and
 * the operator looks again.
 */
export function ClearHaltPanel({
  botId,
  loadedBreakerVersion,
  loadedHalted,
  canAct,
  viewer = null,
}: {
  botId: string;
  loadedBreakerVersion: number | null;
  loadedHalted: boolean;
  canAct: boolean;
  /** A signed-in reader who may not act, told so by name; null for a visitor. */
  viewer?: SignedInViewer | null;
}) {
  const options = botClearQuery(botId);
  const query = useQuery(options);
  const updatedAt = useLiveUpdatedAt(options, query.dataUpdatedAt);
  // Not current: a failed poll, or data older than the one limit every live page keeps (a poll that hangs, a stream gone quiet).
  const { notCurrent: tooOld, ageMs } = useNotCurrent(updatedAt);
  const unsure = query.isError || tooOld;
  const clear = useKeptForm(clearHaltAction);
  const { result, action, pending } = clear;
  const approval = useKeptForm(approveClearAction);
  const id = useId();
  // A drift whose form was sent stays listed (with its answer) after the poll stops listing it.
  const [sent, setSent] = useState<ReadonlyMap<string, UnacknowledgedDrift>>(new Map());
  const [seen, setSeen] = useState({ version: loadedBreakerVersion, halted: loadedHalted });
  const view = query.data;
  // The heartbeat item is judged and worded here, its age counting on from the answer: a bot that
  // stops beating turns it unmet without a new answer, and the view need not change every second.
  const beat = view?.items.find((i) => i.beat)?.beat;
  const beatAgeMs = useLiveAge(beat?.ageMs ?? null, query.dataUpdatedAt);
  // A halt this panel shows after it showed the bot running is the halt the operator sees (their own
  // Halt now, or a trip that came in while they watched): adopt its version. A halt replaced by another
  // between two polls keeps the old version, and the clear is refused. (State adjusted while
  // rendering, as React's docs advise for values derived from new data.)
  const breaker = view?.bot.breaker;
  if (breaker && !breaker.halted && (seen.halted || seen.version !== breaker.version)) setSeen({ version: breaker.version, halted: false });
  if (breaker?.halted && !seen.halted) setSeen({ version: breaker.version, halted: true });
  if (!view) return <AlarmBanner title="No data" causes={[query.error ? query.error.message : "loading…"]} />;
  const halted = view.bot.breaker?.halted ?? false;
  const items = view.items.map((i) => (i.beat ? heartbeatItem({ ageMs: beatAgeMs, limitMs: i.beat.limitMs }, unsure) : i));
  // A viewer is shown no form, so a fix that points at one below says an operator does it.
  const fixOf = (i: (typeof items)[number]) => (!canAct && i.viewerFix ? i.viewerFix : i.fix);
  const missing = items.filter((i) => !i.met);
  const currentVersion = view.bot.breaker?.version ?? null;
  const moved = seen.version !== null && currentVersion !== seen.version;
  // Once the poll lists a sent drift as acknowledged, it moves there: no form, no button, who and when.
  const acknowledged = new Set(view.acknowledged.map((a) => a.symbol));
  const drifts = [...view.drifts, ...[...sent.values()].filter((d) => !view.drifts.some((v) => v.symbol === d.symbol) && !acknowledged.has(d.symbol))].sort(
    (a, b) => (a.symbol < b.symbol ? -1 : 1),
  );
  const clearSection = (
    <section aria-labelledby="clear-title" className="space-y-3 rounded-lg border border-slate-300 bg-white p-4 dark:border-slate-700 dark:bg-slate-900">
      <h2 id="clear-title" className="text-xl font-bold">
        Clear the halt
      </h2>
      {/* Outside the halted branch: once cleared, the next poll shows "not halted" and the outcome must stay. */}
      <ActionMessage
        result={result}
        success={
          result?.ok ? (
            result.data.cleared ? (
              <>
                Cleared. The bot may open new positions on its next cycle.
                <ClearedSilencesNote silences={result.data.silences} />
              </>
            ) : (
              <>
                Requested (#{result.data.requestId}); a second operator must approve before <UtcTime iso={result.data.expiresAt} />.
              </>
            )
          ) : (
            ""
          )
        }
      />
      <ActionMessage
        result={approval.result}
        success={
          <>
            Approved and cleared.
            {approval.result?.ok && <ClearedSilencesNote silences={approval.result.data.silences} />}
          </>
        }
      />
      {!halted ? (
        <p data-testid="not-halted">
          {unsure ? (
            // Not current: "not halted" was true when last read, and may not be now.
            <>
              Unknown: this bot was not halted when last read, at <UtcTime iso={new Date(query.dataUpdatedAt).toISOString()} /> (not current). Nothing to clear
              then; look again once this page updates.
            </>
          ) : factsAreOld(view.bot) ? (
            // The breaker row is what the bot last wrote: a bot that stopped, or tripped and could not
            // write it, reads the same (a try-out read "not halted. Nothing to clear" beside STALE).
            <>
              {`Unknown: ${view.bot.breaker === null ? "the bot has no breaker row, so nothing says whether it may trade," : "the breaker says not halted, as the bot last wrote it,"} but nothing vouches for the bot now (${view.bot.status.toUpperCase()}: ${view.bot.alarms.join("; ")}): it may have stopped, or tripped without writing it. Nothing to clear; check that the bot is running.`}
            </>
          ) : (
            "This bot is not halted. Nothing to clear."
          )}
        </p>
      ) : (
        <>
          <ul className="space-y-1" aria-label="Before clearing" data-testid="checklist">
            {items.map((item) => (
              <li key={item.key} data-item={item.key} data-met={item.met} className="flex gap-2 text-sm">
                <span aria-hidden className={`font-bold ${item.met ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}`}>
                  {item.met ? "✓" : "✗"}
                </span>
                <span>
                  <strong>{item.label}</strong>
                  <span className="sr-only">{item.met ? " (met)" : " (not met)"}</span> —{" "}
                  {/* The heartbeat's age: the server renders its own now; the browser's differs by the load time. */}
                  <span suppressHydrationWarning>
                    <DurationWords text={visibleText(item.detail)} />
                  </span>
                  {item.fix && " "}
                  {item.fix && (
                    <span className="block" data-testid="checklist-fix">
                      {fixOf(item)}
                      {item.link && (
                        <>
                          {" "}
                          <Link href={item.link.href} className="font-semibold underline">
                            {item.link.text}
                          </Link>
                        </>
                      )}
                    </span>
                  )}
                </span>
              </li>
            ))}
          </ul>
          {drifts.length > 0 && (
            <div className="space-y-2">
              <h3 className="font-semibold">Drifts since the trip that nobody acknowledged</h3>
              <ul className="space-y-2">
                {drifts.map((d) => (
                  <EndedDriftForm
                    key={d.symbol}
                    botId={botId}
                    drift={d}
                    canAct={canAct}
                    notCurrent={unsure}
                    botOld={factsAreOld(view.bot)}
                    onSubmit={() => setSent((m) => new Map(m).set(d.symbol, d))}
                  />
                ))}
              </ul>
            </div>
          )}
          {view.acknowledged.length > 0 && (
            <div className="space-y-2">
              <h3 className="font-semibold">Acknowledged since the trip</h3>
              <ul className="space-y-2">
                {view.acknowledged.map((a) => (
                  <li
                    key={a.symbol}
                    data-testid="acknowledged-drift"
                    data-symbol={a.symbol}
                    className="rounded border border-slate-300 p-2 text-sm dark:border-slate-600"
                  >
                    <p>
                      <span className="font-mono font-semibold">{a.symbol}</span>:{" "}
                      {a.drift === "unknown_position" ? "a position the bot never opened" : "size drift"}, ours{" "}
                      <span className="font-mono">{signedQty(a.ours)}</span> / theirs <span className="font-mono">{signedQty(a.theirs)}</span>.
                    </p>
                    <p>
                      Acknowledged by <span className="break-all">{a.by}</span> at <UtcTime iso={a.at} />: “{visibleText(a.note)}”
                    </p>
                  </li>
                ))}
              </ul>
            </div>
          )}
          {moved && (
            <p role="alert" className="rounded bg-amber-50 p-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50">
              The breaker changed since this page was loaded (version {seen.version} → {currentVersion}). Reload before clearing.
            </p>
          )}
          {!canAct && <ViewerNote next={`/bots/${encodeURIComponent(botId)}`} viewer={viewer} />}
          {/* Only someone who may clear is offered the form: a viewer or a visitor reads the checklist and the note above. */}
          {canAct && (
            <form key={clear.key} action={action} className="space-y-2" aria-labelledby={`${id}-clear-heading`}>
              {/* Below the checklist and the drifts, a heading says where the clear itself starts. */}
              <h3 id={`${id}-clear-heading`} className="font-semibold">
                {view.twoPersonClear ? "Confirm the request" : "Confirm the clear"}
              </h3>
              <input type="hidden" name="botId" value={botId} />
              <input type="hidden" name="breakerVersion" value={seen.version ?? ""} />
              <div>
                <label htmlFor={`${id}-reason`} className="text-sm font-semibold">
                  Why it is safe to resume
                </label>
                <textarea
                  id={`${id}-reason`}
                  name="reason"
                  defaultValue={clear.value("reason")}
                  rows={2}
                  className={inputClass}
                  aria-invalid={!!fieldErrors(result, "reason")}
                  aria-describedby={`${id}-reason-err`}
                />
                <FieldError id={`${id}-reason-err`} errors={fieldErrors(result, "reason")} />
              </div>
              <div>
                <label htmlFor={`${id}-confirm`} className="text-sm font-semibold">
                  Type the bot id to confirm: <span className="font-mono">{botId}</span>
                </label>
                <input
                  id={`${id}-confirm`}
                  name="confirmBotId"
                  defaultValue={clear.value("confirmBotId")}
                  autoComplete="off"
                  className={inputClass}
                  aria-invalid={!!fieldErrors(result, "confirmBotId")}
                  aria-describedby={`${id}-confirm-err`}
                />
                <FieldError id={`${id}-confirm-err`} errors={fieldErrors(result, "confirmBotId")} />
              </div>
              <button
                type="submit"
                // Not current: the breaker and the checklist may have moved since they were read (the server checks the version, but the operator must see what they clear).
                disabled={pending || missing.length > 0 || unsure}
                className={`${buttonClass} bg-red-800 hover:bg-red-900`}
                aria-describedby={unsure ? `${id}-not-current ${id}-why-disabled` : `${id}-why-disabled`}
              >
                {view.twoPersonClear ? "Request clear (needs a second operator)" : "Clear halt"}
              </button>
              {unsure && <NotCurrentNote id={`${id}-not-current`} action="clear" />}
              {missing.length > 0 && (
                <p id={`${id}-why-disabled`} className="text-sm" data-testid="unmet">
                  Needed first: {missing.map((m) => m.label.toLowerCase()).join("; ")}.
                </p>
              )}
            </form>
          )}
          {view.pending.length > 0 && (
            <div className="space-y-2">
              <h3 className="font-semibold">Waiting for a second operator</h3>
              {view.pending.map((p) => (
                <form key={`${p.id}-${approval.key}`} action={approval.action} className="rounded border border-slate-300 p-2 text-sm dark:border-slate-600">
                  <p>
                    #{p.id} by {p.requestedBy} at <UtcTime iso={p.requestedAt} />: “{visibleText(p.reason)}” (until <UtcTime iso={p.expiresAt} />)
                  </p>
                  {canAct && (
                    <>
                      <input type="hidden" name="requestId" value={p.id} />
                      <input type="hidden" name="botId" value={botId} />
                      <input type="hidden" name="breakerVersion" value={p.breakerVersion} />
                      <button
                        type="submit"
                        disabled={approval.pending || unsure}
                        className={`${buttonClass} mt-1 bg-red-800 hover:bg-red-900`}
                        aria-describedby={unsure ? `${id}-approve-not-current-${p.id}` : undefined}
                      >
                        Approve and clear
                      </button>
                      {unsure && <NotCurrentNote id={`${id}-approve-not-current-${p.id}`} action="approve" />}
                    </>
                  )}
                </form>
              ))}
            </div>
          )}
        </>
      )}
    </section>
  );
  // While the bot runs there is nothing to clear, and the book is what a reader came for: the box
  // goes below it (on a phone it pushed the book a screen down); above it for a bot halted when the
  // page loaded. Decided once: a halt cleared or tripped while someone reads moved the book by
  // 650 to 750 px under their eyes (a try-out); the bot card above says the new state at once.
  const clearFirst = loadedHalted;
  return (
    <div className="space-y-5">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="break-all text-2xl font-bold">Bot {botId}</h1>
        <LiveStatus updatedAt={updatedAt} failing={unsure} />
      </div>
      <NotCurrentShown when={unsure} />
      {unsure && <AlarmBanner title="Not updating" causes={[query.isError ? query.error.message : notUpdatedWords(ageMs)]} />}
      <BotCard
        // The overview card's counts too: a running bot's page said nothing of its doubtful orders
        // or drifting symbols (a try-out); the drifts are its latest compared cycle's, as there.
        bot={{
          ...view.bot,
          source: view.source,
          doubtfulOrders: view.doubtfulOrders,
          symbolsInDrift: view.book.drifting.length,
          unknownPositions: view.book.drifting.filter((d) => d.drift === "unknown_position").length,
        }}
        unsure={unsure}
        receivedAt={query.dataUpdatedAt}
        haltStory={
          view.haltTripId === null ? null : { id: incidentIdText(view.haltTripId, view.source), href: incidentStoryHref(view.haltTripId, view.source) }
        }
      />

      {clearFirst && clearSection}
      <BookSection
        botId={botId}
        book={view.book}
        canAct={canAct}
        notCurrent={unsure}
        unvouched={
          factsAreOld(view.bot)
            ? { status: view.bot.status === "halted" ? (view.bot.haltedAlso ?? "unknown") : view.bot.status, alarms: view.bot.alarms }
            : null
        }
      />
      {!clearFirst && clearSection}
    </div>
  );
}
