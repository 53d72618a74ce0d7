"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { ActionMessage, buttonClass, FieldError, fieldErrors, inputClass } from "@/components/actions/action-message";
import { useKeptForm } from "@/components/actions/use-kept-form";
import { haltBotAction } from "@/lib/actions/server";
import type { ActionResult } from "@/lib/actions/result";

/**
 * "Halt now": the kill switch on a bot's card, for operators only (the card decides). It sends the
 * breaker version shown when the form was opened, so a breaker that moved meanwhile is a conflict
 * that says what changed; after a conflict the form takes the version now shown. Once applied, the
 * live view is asked to read again at once, so the card turns HALTED without waiting for its poll.
 */
export function HaltNowForm({ botId, version, halted }: { botId: string; version: number; halted: boolean }) {
  const queryClient = useQueryClient();
  const { result, action, pending, value, key } = useKeptForm(async (prev: null, form: FormData) => {
    const r = await haltBotAction(prev, form);
    if (r.ok) void queryClient.invalidateQueries();
    return r;
  });
  const id = useId();
  const [seen, setSeen] = useState<number | null>(null);
  const [answered, setAnswered] = useState<ActionResult<{ version: number }> | null>(null);
  if (answered !== result) {
    setAnswered(result);
    if (result && !result.ok && result.code === "conflict") setSeen(version);
  }
  const success = `Halted. ${botId} opens no new position from its next cycle until someone clears the halt.`;
  // Once halted the card shows the halt; only the answer to this operator's own click stays. The
  // form is hidden, not dropped: a reason typed while someone else halted and cleared the bot is
  // still there when it is offered again.
  return (
    <>
      {halted && result?.ok && <ActionMessage result={result} success={success} />}
      <details
        hidden={halted}
        className="mt-3 text-sm"
        data-testid="halt-now"
        onToggle={(e) => {
          if (e.currentTarget.open && seen === null) setSeen(version);
        }}
      >
        <summary className="inline-block cursor-pointer rounded border border-red-800 px-3 py-1 font-semibold text-red-800 dark:border-red-300 dark:text-red-300">
          Halt now<span className="sr-only"> {botId}</span>
        </summary>
        <form key={key} action={action} className="mt-2 space-y-2">
          <input type="hidden" name="botId" value={botId} />
          <input type="hidden" name="breakerVersion" value={seen ?? version} />
          <label htmlFor={`${id}-reason`} className="block font-semibold">
            Why halt it
          </label>
          <textarea
            id={`${id}-reason`}
            name="reason"
            defaultValue={value("reason")}
            rows={2}
            className={inputClass}
            aria-invalid={!!fieldErrors(result, "reason")}
            aria-describedby={`${id}-reason-err ${id}-warning`}
          />
          <FieldError id={`${id}-reason-err`} errors={fieldErrors(result, "reason")} />
          <p id={`${id}-warning`} className="text-slate-700 dark:text-slate-200">
            The bot stops opening new positions on its next cycle, until someone clears the halt.
          </p>
          <button type="submit" disabled={pending} className={`${buttonClass} bg-red-800 hover:bg-red-900`}>
            Halt <span className="break-all font-mono">{botId}</span>
          </button>
        </form>
        {!halted && <ActionMessage result={result} success={success} />}
      </details>
    </>
  );
}
