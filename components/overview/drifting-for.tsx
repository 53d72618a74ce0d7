"use client";
import { DurationText } from "@/components/ui/duration-text";
import { useLiveAge } from "@/components/live/use-now";

/**
 * How long a symbol has drifted, as far as the console knows it. Current data: the server's age kept
 * counting on this clock from the answer's arrival (`receivedAt`), since a view is not resent while
 * nothing in it changes (before, a drift that lasted read the same "3 min 10 s" until the next
 * cycle, then jumped). `botOld` (STALE or UNKNOWN bot): how long it had drifted at the bot's last
 * cycle, said so; whether it drifts still is not known. `unsure` (the page is not current): the
 * age when last read, said so.
 */
export function DriftingFor({
  line,
  receivedAt,
  unsure,
  botOld,
}: {
  line: { driftSince: string | null; driftForMs: number | null; at: string };
  receivedAt: number | undefined;
  unsure: boolean;
  botOld: boolean;
}) {
  const live = useLiveAge(unsure || botOld ? null : line.driftForMs, receivedAt);
  if (line.driftSince === null) return <>—</>;
  if (botOld || unsure) {
    const atCycle = Date.parse(line.at) - Date.parse(line.driftSince);
    const ms = botOld ? (Number.isFinite(atCycle) ? Math.max(0, atCycle) : null) : line.driftForMs;
    return (
      <span data-testid="drifting-for" data-as-of={botOld ? "last-cycle" : "last-read"}>
        <DurationText ms={ms} /> <span className="text-xs italic text-slate-600 dark:text-slate-300">{botOld ? "at its last cycle" : "when last read"}</span>
      </span>
    );
  }
  return (
    <span data-testid="drifting-for" data-as-of="now">
      <DurationText ms={live} />
    </span>
  );
}
