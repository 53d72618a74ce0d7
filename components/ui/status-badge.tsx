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

export function StatusBadge({ status }: { status: BotStatus }) {
  return (
    <span data-status={status} className={`inline-block rounded px-2 py-0.5 text-sm font-bold tracking-wide ${styles[status]}`}>
      {labels[status]}
    </span>
  );
}
