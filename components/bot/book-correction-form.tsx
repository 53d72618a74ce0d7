"use client";
import { useId } from "react";
import { ActionMessage, buttonClass, FieldError, fieldErrors, inputClass } from "@/components/actions/action-message";
import { NotCurrentNote } from "@/components/actions/not-current-note";
import { useKeptForm } from "@/components/actions/use-kept-form";
import { UtcTime } from "@/components/ui/utc-time";
import { correctBookAction } from "@/lib/actions/server";
import { signedQty } from "@/lib/text/format";
import type { DriftingLine } from "@/lib/queries/book-corrections";

/**
 * One symbol that drifts in the bot's latest cycle, and the correction of the bot's book for it:
 * the two choices in plain words with the numbers they lead to. The sizes and the cycle the
 * operator sees are sent with the form, so a line that moved meanwhile is refused, not corrected
 * blind. While a correction waits for the bot's next cycle, it says so instead of offering another.
 * While the page is not current (`notCurrent`) the sizes shown may be old: the button waits. A
 * reader who may not act reads the line and any pending correction, without the form.
 */
export function BookCorrectionForm({ botId, line, canAct, notCurrent }: { botId: string; line: DriftingLine; canAct: boolean; notCurrent: boolean }) {
  const { result, action, pending, value, key } = useKeptForm(correctBookAction);
  const id = useId();
  const ours = signedQty(line.ours);
  const theirs = signedQty(line.theirs);
  // A flat book needs no flatten: the bot closes an unknown position itself.
  const oursFlat = Math.abs(line.ours) < line.qtyStep / 2;
  return (
    <li data-testid="book-line" data-symbol={line.symbol} className="space-y-2 rounded border border-amber-600 p-3 text-sm">
      <p>
        <span className="font-mono font-semibold">{line.symbol}</span>: the bot&apos;s book <span className="font-mono">{ours}</span>, the exchange{" "}
        <span className="font-mono">{theirs}</span> (cycle at <UtcTime iso={line.at} />
        ).
      </p>
      {line.pending ? (
        <p role="status" data-testid="correction-pending" className="rounded bg-emerald-50 p-2 text-emerald-950 dark:bg-emerald-950 dark:text-emerald-50">
          Corrected by {line.pending.correctedBy} at <UtcTime iso={line.pending.correctedAt} />: book {signedQty(line.pending.ours)} →{" "}
          {signedQty(line.pending.ours + line.pending.delta)}; the bot applies it on its next cycle.
        </p>
      ) : !canAct ? null : (
        <form key={key} action={action} className="space-y-2">
          <input type="hidden" name="botId" value={botId} />
          <input type="hidden" name="symbol" value={line.symbol} />
          <input type="hidden" name="reconciliationId" value={line.reconciliationId} />
          <input type="hidden" name="ours" value={line.ours} />
          <input type="hidden" name="theirs" value={line.theirs} />
          <fieldset className="space-y-1" aria-describedby={`${id}-kind-err`}>
            <legend className="font-semibold">Correct the bot&apos;s book of {line.symbol}</legend>
            <label className="flex items-start gap-2">
              <input type="radio" name="kind" value="adopt_exchange" defaultChecked={value("kind") === "adopt_exchange"} className="mt-1" />
              <span>
                Adopt the exchange&apos;s {theirs}: the bot&apos;s book goes from {ours} to {theirs}.
              </span>
            </label>
            {!oursFlat && (
              <label className="flex items-start gap-2">
                <input type="radio" name="kind" value="flattened_on_venue" defaultChecked={value("kind") === "flattened_on_venue"} className="mt-1" />
                <span>I flattened it on the venue: the bot&apos;s book goes to 0, and the exchange must show 0 too.</span>
              </label>
            )}
            <FieldError id={`${id}-kind-err`} errors={fieldErrors(result, "kind")} />
          </fieldset>
          <div>
            <label htmlFor={`${id}-note`} className="font-semibold">
              What you checked on the venue
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
          </div>
          <button
            type="submit"
            disabled={pending || notCurrent}
            className={`${buttonClass} bg-amber-800 hover:bg-amber-900`}
            aria-describedby={notCurrent ? `${id}-not-current` : undefined}
          >
            Correct the book of {line.symbol}
          </button>
          {notCurrent && <NotCurrentNote id={`${id}-not-current`} action={`correct the book of ${line.symbol}`} />}
        </form>
      )}
      {/* Once the poll shows the pending correction, it says the same with who made it: one message, not two. */}
      <ActionMessage
        result={line.pending && result?.ok ? null : result}
        success={
          result?.ok ? (
            <>
              Corrected at <UtcTime iso={result.data.correctedAt} />: book {signedQty(result.data.before)} → {signedQty(result.data.after)}; the bot applies it
              on its next cycle.
            </>
          ) : (
            ""
          )
        }
      />
    </li>
  );
}
