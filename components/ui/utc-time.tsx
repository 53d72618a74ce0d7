"use client";
import { useEffect, useState } from "react";
import { formatUtc } from "@/lib/format";

/** A time shown in UTC (what the journal and the team speak), with the reader's local time on hover. */
export function UtcTime({ iso, className }: { iso: string; className?: string }) {
  const [local, setLocal] = useState<string | undefined>(undefined);
  useEffect(() => {
    const t = Date.parse(iso);
    // Local time depends on the reader's zone, so it is only known in the browser.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    if (!Number.isNaN(t)) setLocal(`${new Date(t).toLocaleString()} (your local time)`);
  }, [iso]);
  return (
    <time dateTime={iso} title={local} className={className}>
      {formatUtc(iso)}
    </time>
  );
}
