"use client";
import type { ClearedSilences } from "@/lib/alerting/silences";

/** The Alertmanager half of a clear's answer: the bot's silences ended, or the ones still quieting its page. */
export function ClearedSilencesNote({ silences }: { silences: ClearedSilences | undefined }) {
  if (!silences) return null;
  const n = silences.expired.length;
  const failed = silences.failed;
  return (
    <span data-testid="cleared-silences-note">
      {n > 0 && ` Ended ${n} Alertmanager silence${n === 1 ? "" : "s"} made for its acknowledgements.`}
      {failed.length > 0 && (
        <span className="block font-semibold text-red-900 dark:text-red-200">
          Could not end {failed.length === 1 ? "a silence" : `${failed.length} silences`} in Alertmanager ({failed[0]?.message}): its page stays quiet until the
          acknowledgement expires — expire {failed.length === 1 ? "it" : "them"} in Alertmanager by hand
          {failed.some((f) => f.silenceId) && (
            <>
              {" "}
              (<span className="font-mono">{failed.map((f) => f.silenceId).join(", ")}</span>)
            </>
          )}
          . The console retries.
        </span>
      )}
    </span>
  );
}
