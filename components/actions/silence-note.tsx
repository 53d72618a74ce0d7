"use client";
import { UtcTime } from "@/components/ui/utc-time";
import type { SilenceOutcome } from "@/lib/alerting/silences";

/** The Alertmanager half of an acknowledgement's answer: the silence made, or why the page keeps firing. */
export function SilenceNote({ silence }: { silence: SilenceOutcome | undefined }) {
  if (!silence) return null;
  if (silence.ok) {
    return (
      <span data-testid="silence-note" data-silence-id={silence.silenceId}>
        {" "}
        Alertmanager silence <span className="font-mono">{silence.silenceId.slice(0, 8)}…</span> until <UtcTime iso={silence.endsAt} />.
      </span>
    );
  }
  const what =
    silence.code === "unreachable"
      ? "Alertmanager could not be reached"
      : silence.code === "refused"
        ? "Alertmanager refused the silence"
        : "No silence was made";
  return (
    <span data-testid="silence-note" data-silence-failed={silence.code} className="block font-semibold text-red-900 dark:text-red-200">
      {what}: the page keeps firing — silence it in Alertmanager by hand. ({silence.message})
    </span>
  );
}
