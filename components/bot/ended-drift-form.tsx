"use client";
import Link from "next/link";
import { useId } from "react";
import { ActionMessage, buttonClass, FieldError, fieldErrors, inputClass } from "@/components/actions/action-message";
import { NotCurrentNote } from "@/components/actions/not-current-note";
import { useKeptForm } from "@/components/actions/use-kept-form";
import { UtcTime } from "@/components/ui/utc-time";
import { acknowledgeEndedDriftAction } from "@/lib/actions/server";
import type { UnacknowledgedDrift } from "@/lib/breaker/clear-checklist";
import { signedQty } from "@/lib/text/format";

/**
 * One drift since the trip that nobody acknowledged. A drift that has ended is acknowledged here,
 * on the cycle the operator sees; one that still drifts is acknowledged on the overview, where its
 * sizes are live. While the page is not current (`notCurrent`) the cycle shown may not be the
 * latest: the button waits, and what was typed stays. A reader who may not act reads the drift
 * without the form.
 */
export function EndedDriftForm({
  botId,
  drift: d,
  canAct,
  notCurrent,
  botOld = false,
  onSubmit,
}: {
  botId: string;
  drift: UnacknowledgedDrift;
  canAct: boolean;
  notCurrent: boolean;
  /** Nothing vouches for the bot now (STALE or UNKNOWN): its latest cycle may be its last. */
  botOld?: boolean;
  onSubmit: () => void;
}) {
  const { result, action, pending, value, key } = useKeptForm(acknowledgeEndedDriftAction);
  const id = useId();
  return (
    <li data-testid="unacknowledged-drift" data-symbol={d.symbol} className="rounded border border-amber-600 p-2 text-sm">
      <p>
        <span className="font-mono font-semibold">{d.symbol}</span>: {d.drift === "unknown_position" ? "a position the bot never opened" : "size drift"}, ours{" "}
        <span className="font-mono">{signedQty(d.ours)}</span> / theirs <span className="font-mono">{signedQty(d.theirs)}</span> at <UtcTime iso={d.at} /> (it
        drifted in {d.cycles} cycle{d.cycles === 1 ? "" : "s"} since the trip)
        {d.ongoing
          ? // "Still" is a claim about now: the page's last read, or the bot's last cycle, is all it knows (a try-out).
            notCurrent
            ? ", still drifting when last read"
            : botOld
              ? ", drifting at the bot's last cycle"
              : ", still drifting"
          : ", back in sync since then"}
        .
      </p>
      {d.ongoing ? (
        // A reader who may not act is shown neither form: the words say an operator does it.
        <p className="mt-1">
          {canAct ? "Acknowledge it" : "An operator acknowledges it"} on the{" "}
          <Link href={`/?bot=${encodeURIComponent(botId)}&drift=1`} className="font-semibold underline">
            overview
          </Link>
          , where its sizes are live, or {canAct ? "correct" : "corrects"} the bot&apos;s book {canAct ? "below" : "on this page"} if the exchange is right (the
          correction acknowledges it).
        </p>
      ) : !canAct ? null : (
        <form key={key} action={action} onSubmit={onSubmit} className="mt-2 space-y-2">
          <input type="hidden" name="botId" value={botId} />
          <input type="hidden" name="symbol" value={d.symbol} />
          <input type="hidden" name="reconciliationId" value={d.reconciliationId} />
          <label htmlFor={`${id}-note`} className="block font-semibold">
            What you checked
          </label>
          <textarea
            id={`${id}-note`}
            name="note"
            defaultValue={value("note")}
            rows={2}
            className={inputClass}
            aria-invalid={!!fieldErrors(result, "note")}
            aria-describedby={`${id}-note-err`}
          />
          <FieldError id={`${id}-note-err`} errors={fieldErrors(result, "note")} />
          <button
            type="submit"
            disabled={pending || notCurrent}
            className={`${buttonClass} bg-amber-800 hover:bg-amber-900`}
            aria-describedby={notCurrent ? `${id}-not-current` : undefined}
          >
            Acknowledge {d.symbol}
          </button>
          {notCurrent && <NotCurrentNote id={`${id}-not-current`} action={`acknowledge ${d.symbol}`} />}
          <ActionMessage result={result} success={result?.ok ? `Acknowledged: the checklist counts ${d.symbol} as looked at.` : ""} />
        </form>
      )}
    </li>
  );
}
