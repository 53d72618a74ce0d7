import type { BotStatus } from "@/lib/breaker/bot-status";

// UNKNOWN (times missing or untrusted, or a cycle that did not compare the books) is amber and
// dashed: the console cannot vouch for the bot, which a quiet grey did not say. Softer than STALE
// (the bot may have stopped), which is solid.
const styles: Record<BotStatus, string> = {
  halted: "px-2 py-0.5 bg-red-700 text-white",
  drift: "px-2 py-0.5 bg-orange-700 text-white",
  stale: "px-2 py-0.5 bg-amber-300 text-amber-950",
  unknown: "px-1.5 border-2 border-dashed border-amber-700 bg-amber-100 text-amber-950 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100",
  running: "px-2 py-0.5 bg-emerald-700 text-white",
};

/** A badge's colours and padding, for a word that means the same status in other words (/breakers' "unknown: not halted when last read"). */
export const statusBadgeStyle = (status: BotStatus): string => styles[status];

const labels: Record<BotStatus, string> = {
  halted: "HALTED",
  drift: "DRIFT",
  stale: "STALE",
  unknown: "UNKNOWN",
  running: "running",
};

/**
 * A bot's status in one word. `also`: what a halted bot also is (botStatus's haltedAlso in
 * lib/breaker/bot-status.ts), as a second badge beside HALTED ("HALTED STALE").
 */
export function StatusBadge({ status, also = null }: { status: BotStatus; also?: "stale" | "unknown" | null }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1">
      <span data-status={status} className={`inline-block rounded text-sm font-bold tracking-wide ${styles[status]}`}>
        {labels[status]}
      </span>
      {also && (
        <span data-also-status={also} className={`inline-block rounded text-sm font-bold tracking-wide ${styles[also]}`}>
          {labels[also]}
        </span>
      )}
    </span>
  );
}
