import type { BotStatus } from "@/lib/breaker/bot-status";

const styles: Record<BotStatus, string> = {
  halted: "bg-red-700 text-white",
  drift: "bg-orange-700 text-white",
  stale: "bg-amber-300 text-amber-950",
  unknown: "bg-slate-300 text-slate-900 dark:bg-slate-600 dark:text-white",
  running: "bg-emerald-700 text-white",
};

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
      <span data-status={status} className={`inline-block rounded px-2 py-0.5 text-sm font-bold tracking-wide ${styles[status]}`}>
        {labels[status]}
      </span>
      {also && (
        <span data-also-status={also} className={`inline-block rounded px-2 py-0.5 text-sm font-bold tracking-wide ${styles[also]}`}>
          {labels[also]}
        </span>
      )}
    </span>
  );
}
