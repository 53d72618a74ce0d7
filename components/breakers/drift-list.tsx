import { DriftBadge } from "@/components/ui/drift-badge";
import type { IncidentDrift } from "@/lib/incidents/events";
import { signedQty } from "@/lib/text/format";

/** The drifting symbols of one reconciliation cycle: ours against theirs, an unknown position first in red. */
export function DriftList({ drifts, label }: { drifts: IncidentDrift[]; label: string }) {
  if (drifts.length === 0) return null;
  const sorted = [...drifts].sort((a, b) => (a.drift === b.drift ? (a.symbol < b.symbol ? -1 : 1) : a.drift === "unknown_position" ? -1 : 1));
  return (
    <ul aria-label={label} className="mt-1 space-y-1">
      {sorted.map((d) => (
        <li key={d.symbol} data-testid="drift-line" data-drift={d.drift} className="flex flex-wrap items-center gap-x-2 gap-y-0.5 text-sm">
          <span className="font-mono font-semibold">{d.symbol}</span>
          <span className="font-mono">
            ours {signedQty(d.ours)} · theirs {signedQty(d.theirs)}
          </span>
          <DriftBadge drift={d.drift} />
        </li>
      ))}
    </ul>
  );
}
