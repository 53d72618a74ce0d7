"use client";
import { useState } from "react";
import { formatUtc } from "@/lib/text/format";
import { notionalText } from "@/lib/text/notional";

/**
 * The value of a drift's gap: amount and quote currency, the age of its mark when an earlier cycle
 * gave it, and, with no mark at all, a sentence instead of a blank.
 */
export function Notional({ size, symbol, mark, markAt }: { size: number; symbol: string; mark: number | null; markAt: string | null }) {
  const [now] = useState(() => Date.now());
  const n = notionalText({ size, symbol, mark, markFrom: markAt ? formatUtc(markAt, now) : null });
  return (
    <span
      title={n.title ?? undefined}
      data-testid="notional"
      data-missing={n.missing || undefined}
      className={n.missing ? "font-sans text-xs italic" : undefined}
      suppressHydrationWarning
    >
      {n.text}
    </span>
  );
}
