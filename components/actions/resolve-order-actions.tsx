"use client";
import { useEffect, useEffectEvent, useId, useState } from "react";
import { UtcTime } from "@/components/ui/utc-time";
import { resolveByLookupAction, resolveManuallyAction } from "@/lib/actions/server";
import { ActionMessage, buttonClass, FieldError, fieldErrors, inputClass } from "./action-message";
import { useKeptForm } from "./use-kept-form";
import type { OrderState } from "@/lib/journal/contract";
import { PRICE_SANITY_FACTOR } from "@/lib/journal/price-sanity";

/** "filled at 1530": the state, and the price recorded with it, so the operator sees the price they typed once more. */
const asResolved = (r: { state: OrderState; avgPrice: number | null }) => `${r.state.replace(/_/g, " ")}${r.avgPrice !== null ? ` at ${r.avgPrice}` : ""}`;

const STATUSES = [
  ["filled", "filled"],
  ["partially_filled", "partially filled"],
  ["open", "open (resting on the book)"],
  ["canceled", "canceled"],
  ["rejected", "rejected"],
  ["absent", "absent (the exchange has no such order)"],
] as const;

/**
 * Settle a doubtful order: ask the exchange, or record what its own screen shows. Never resend.
 * Nothing for a reader who may not act (a viewer, a visitor): the card above says all there is to read.
 */
export function ResolveOrderActions({
  clientOrderId,
  version,
  state,
  filledQty,
  canAct,
  onResolved,
  onBusy,
}: {
  clientOrderId: string;
  version: number;
  /** What the operator sees of the order: a resolution is refused only when these changed meanwhile. */
  state: OrderState;
  filledQty: number;
  canAct: boolean;
  /** A resolved order leaves the list on the next poll, taking this form with it: say it above. */
  onResolved?: (message: string) => void;
  /**
   * True when a form is sent, false (with the outcome) when its answer is here: the list holds the
   * card meanwhile, so a poll that no longer lists the order cannot take the answer away with it.
   */
  onBusy?: (busy: boolean, ok?: boolean) => void;
}) {
  // A check that fails the same way again shows its message once, and when it failed again: the
  // operator sees the click did something without reading the same sentence twice.
  const [lookupFailure, setLookupFailure] = useState<{ message: string; againAt: string | null } | null>(null);
  const lookupForm = useKeptForm(async (_prev: null, form: FormData) => {
    const result = await resolveByLookupAction(null, form);
    const at = new Date().toISOString();
    setLookupFailure((was) => (result.ok ? null : { message: result.message, againAt: was?.message === result.message ? at : null }));
    return result;
  });
  const { result: lookup, action: lookupAction, pending: lookupPending } = lookupForm;
  const manualForm = useKeptForm(resolveManuallyAction);
  const { result: manual, action: manualAction, pending: manualPending, value } = manualForm;
  // Once per answer: the callbacks may be new functions on every render of the list.
  const answered = useEffectEvent((ok: boolean, message: string) => {
    if (ok) onResolved?.(message);
    onBusy?.(false, ok);
  });
  useEffect(() => {
    if (lookup) answered(lookup.ok, lookup.ok ? `${clientOrderId}: the exchange has it as ${asResolved(lookup.data)}; the journal now says so.` : "");
  }, [lookup, clientOrderId]);
  useEffect(() => {
    if (manual) answered(manual.ok, manual.ok ? `${clientOrderId}: recorded as ${asResolved(manual.data)}.` : "");
  }, [manual, clientOrderId]);
  const id = useId();
  const err = (name: string) => fieldErrors(manual, name);
  if (!canAct) return null;
  return (
    <div className="mt-3 space-y-2 border-t border-slate-200 pt-3 dark:border-slate-700">
      <form key={lookupForm.key} action={lookupAction} onSubmit={() => onBusy?.(true)}>
        <input type="hidden" name="clientOrderId" value={clientOrderId} />
        <input type="hidden" name="version" value={version} />
        <input type="hidden" name="seenState" value={state} />
        <input type="hidden" name="seenFilledQty" value={filledQty} />
        <button type="submit" disabled={lookupPending} className={`${buttonClass} bg-sky-800 hover:bg-sky-900`}>
          {lookupPending ? "Asking the exchange…" : "Check on exchange"}
        </button>
        <ActionMessage result={lookup} success={lookup?.ok ? `The exchange has it as ${asResolved(lookup.data)}; the journal now says so.` : ""} />
        {lookup && !lookup.ok && lookupFailure?.againAt && lookupFailure.message === lookup.message && (
          <p role="status" data-testid="failed-again" className="mt-1 text-sm font-semibold text-red-900 dark:text-red-200">
            Failed again at <UtcTime iso={lookupFailure.againAt} />.
          </p>
        )}
      </form>
      <details>
        <summary className="cursor-pointer text-sm font-semibold">Resolve by hand</summary>
        <form key={manualForm.key} action={manualAction} onSubmit={() => onBusy?.(true)} className="mt-2 space-y-2">
          <input type="hidden" name="clientOrderId" value={clientOrderId} />
          <input type="hidden" name="version" value={version} />
          <input type="hidden" name="seenState" value={state} />
          <input type="hidden" name="seenFilledQty" value={filledQty} />
          <div>
            <label htmlFor={`${id}-status`} className="text-sm font-semibold">
              Status on the exchange&apos;s own screen
            </label>
            <select
              id={`${id}-status`}
              name="status"
              defaultValue={value("status")}
              className={inputClass}
              aria-invalid={!!err("status")}
              aria-describedby={`${id}-status-err`}
            >
              <option value="" disabled>
                choose…
              </option>
              {STATUSES.map(([v, label]) => (
                <option key={v} value={v}>
                  {label}
                </option>
              ))}
            </select>
            <FieldError id={`${id}-status-err`} errors={err("status")} />
          </div>
          <div className="grid gap-2 sm:grid-cols-2">
            <div>
              <label htmlFor={`${id}-filled`} className="text-sm font-semibold">
                Filled quantity
              </label>
              <input
                id={`${id}-filled`}
                name="filledQty"
                defaultValue={value("filledQty")}
                inputMode="decimal"
                className={inputClass}
                aria-invalid={!!err("filledQty")}
                aria-describedby={`${id}-filled-err`}
              />
              <FieldError id={`${id}-filled-err`} errors={err("filledQty")} />
            </div>
            <div>
              <label htmlFor={`${id}-price`} className="text-sm font-semibold">
                Average price
              </label>
              <input
                id={`${id}-price`}
                name="avgPrice"
                defaultValue={value("avgPrice")}
                inputMode="decimal"
                className={inputClass}
                aria-invalid={!!err("avgPrice")}
                aria-describedby={`${id}-price-err`}
              />
              <FieldError id={`${id}-price-err`} errors={err("avgPrice")} />
            </div>
          </div>
          <div className="flex items-start gap-2">
            <input
              id={`${id}-price-right`}
              name="priceConfirmed"
              type="checkbox"
              defaultChecked={value("priceConfirmed") === "on"}
              className="mt-1"
              aria-describedby={`${id}-price-right-hint`}
            />
            <label htmlFor={`${id}-price-right`} className="text-sm">
              <span className="font-semibold">The price is right</span>{" "}
              <span id={`${id}-price-right-hint`} className="text-slate-600 dark:text-slate-300">
                (record it even if it is more than {PRICE_SANITY_FACTOR} times, or under 1/{PRICE_SANITY_FACTOR} of, the last mark)
              </span>
            </label>
          </div>
          <div>
            <label htmlFor={`${id}-note`} className="text-sm font-semibold">
              Note (required): what you saw, where
            </label>
            <textarea
              id={`${id}-note`}
              name="note"
              defaultValue={value("note")}
              rows={2}
              className={inputClass}
              aria-invalid={!!err("note")}
              aria-describedby={`${id}-note-err`}
            />
            <FieldError id={`${id}-note-err`} errors={err("note")} />
          </div>
          <button type="submit" disabled={manualPending} className={`${buttonClass} bg-slate-800 hover:bg-slate-900 dark:bg-slate-600`}>
            Record resolution
          </button>
          <ActionMessage result={manual} success={manual?.ok ? `Recorded as ${asResolved(manual.data)}.` : ""} />
        </form>
      </details>
    </div>
  );
}
