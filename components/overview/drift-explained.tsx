import Link from "next/link";
import type { DriftExplainedBy } from "@/lib/queries/drift-explained";
import { formatSigned } from "@/lib/text/signed";
import { TAP_TARGET } from "@/components/ui/tap-target";

/**
 * Under a drift: the doubtful orders whose fills would account for it exactly, so the on-call
 * person settles them first instead of treating the drift as a second incident.
 */
export function DriftExplained({ by }: { by?: DriftExplainedBy | null }) {
  if (!by) return null;
  const one = by.clientOrderIds.length === 1;
  return (
    <p data-testid="drift-explained" className="mt-1 text-xs text-slate-800 dark:text-slate-100">
      Explained if {one ? "the doubtful order" : "the doubtful orders"}{" "}
      <span className="font-mono [overflow-wrap:anywhere]">{by.clientOrderIds.join(", ")}</span> filled ({formatSigned(by.ifFilled)}):{" "}
      {/* 24 px to a finger: 14 px tall on a phone (a try-out). */}
      <Link href={`/doubtful?bot=${encodeURIComponent(by.botId)}`} className={`font-semibold underline ${TAP_TARGET}`}>
        settle {one ? "it" : "them"} first
      </Link>
    </p>
  );
}
