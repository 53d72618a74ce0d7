import type { DriftClass } from "@/lib/reconcile/diff";

const styles: Record<Exclude<DriftClass, "none">, { className: string; label: string }> = {
  unknown_position: { className: "bg-red-700", label: "Unknown position" },
  size_drift: { className: "bg-orange-700", label: "Size drift" },
};

/**
 * A drift's class in the words of every table and list: UNKNOWN POSITION in red (a position the
 * bot never opened), SIZE DRIFT in orange. As wide as its words wherever it sits: in a phone's
 * card, whose cells are grids, a badge stretched across the card (a try-out).
 */
export function DriftBadge({ drift }: { drift: Exclude<DriftClass, "none"> }) {
  const { className, label } = styles[drift];
  return <span className={`inline-block justify-self-start rounded px-1.5 py-0.5 text-xs font-bold uppercase text-white ${className}`}>{label}</span>;
}
