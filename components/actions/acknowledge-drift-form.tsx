"use client";
import { UtcTime } from "@/components/ui/utc-time";
import { useId, useState } from "react";
import { acknowledgeDriftAction } from "@/lib/actions/server";
import type { OverviewLine } from "@/lib/queries/overview";
import { ActionMessage, buttonClass, FieldError, fieldErrors, inputClass } from "./action-message";
import { SilenceNote } from "./silence-note";
import { useKeptForm } from "./use-kept-form";

/**
 * Acknowledge one drift as the operator sees it now; a changed drift is refused, not silenced.
 * Nothing for a reader who may not act (a viewer, a visitor): no form to open and find greyed.
 */
export function AcknowledgeDriftForm({ line, canAct }: { line: OverviewLine; canAct: boolean }) {
  const { result, action, pending, value, key } = useKeptForm(acknowledgeDriftAction);
  const id = useId();
  // Closed once the acknowledgement is in: left open, an empty "Acknowledge again" form sat above
  // the green answer, and read on a phone as if the acknowledgement still had to be done.
  const [open, setOpen] = useState(false);
  const [closedFor, setClosedFor] = useState<typeof result>(null);
  if (result?.ok && closedFor !== result) {
    setClosedFor(result);
    setOpen(false);
  }
  if (!canAct) return null;
  const done = result?.ok && !open ? result.data : null;
  return (
    <div>
      <details className="text-sm" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary className="cursor-pointer py-1 font-semibold underline">{line.ack ? "Acknowledge again" : "Acknowledge"}</summary>
        <form key={key} action={action} className="mt-2 space-y-2">
          <input type="hidden" name="botId" value={line.botId} />
          <input type="hidden" name="symbol" value={line.symbol} />
          <input type="hidden" name="drift" value={line.drift} />
          <input type="hidden" name="ours" value={line.ours} />
          <input type="hidden" name="theirs" value={line.theirs} />
          <input type="hidden" name="driftSince" value={line.driftSince ?? ""} />
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
          <button type="submit" disabled={pending} className={`${buttonClass} bg-amber-800 hover:bg-amber-900`}>
            Acknowledge {line.symbol}
          </button>
          {/* A refusal stays with the form it is about; the acknowledgement's answer is below it, closed. */}
          {!result?.ok && <ActionMessage result={result} success="" />}
        </form>
      </details>
      {done && (
        <ActionMessage
          result={result}
          success={
            <>
              Acknowledged until <UtcTime iso={done.expiresAt} />, or until the drift changes.
              <SilenceNote silence={done.silence} />
            </>
          }
        />
      )}
    </div>
  );
}
