"use client";
import { useEffect, useState } from "react";
import { formatUtc } from "@/lib/text/format";

/**
 * A time shown in UTC (what the journal and the team speak), with the reader's local time on hover.
 * `children` replaces the shown text where the context already says the date (a minute header).
 */
export function UtcTime({ iso, className, children }: { iso: string; className?: string; children?: React.ReactNode }) {
  const [local, setLocal] = useState<string | undefined>(undefined);
  useEffect(() => {
    const t = Date.parse(iso);
    // Local time depends on the reader's zone, so it is only known in the browser.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    if (!Number.isNaN(t)) setLocal(`${new Date(t).toLocaleString()} (your local time)`);
  }, [iso]);
  return (
    <time dateTime={iso} title={local} className={className}>
      {children ?? formatUtc(iso)}
    </time>
  );
}
