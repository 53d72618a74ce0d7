"use client";
import { useEffect, useState } from "react";
import { formatUtc } from "@/lib/text/format";

/**
 * A time shown the console's one way (lib/text/format.ts formatUtc: "05:31:02 UTC" today,
 * "Nov 30 05:31:02 UTC" another day), the full ISO in `dateTime` and the title, and the reader's
 * local time added to the title once in the browser. `children` replaces the shown text where the
 * context already says the date (a minute header).
 */
export function UtcTime({
  iso,
  className,
  children,
  withDate = false,
}: {
  iso: string;
  className?: string;
  children?: React.ReactNode;
  /** Say the date even today: the end of a range whose start is on another day ("Aug 10 09:58:00 UTC to Dec 3 12:15:00 UTC"). */
  withDate?: boolean;
}) {
  // Which day is "today" is read once, when the time is first drawn; the server and the browser
  // disagree only across midnight, and then the server's text stays (suppressHydrationWarning).
  const [now] = useState(() => Date.now());
  const [local, setLocal] = useState<string | undefined>(undefined);
  useEffect(() => {
    const t = Date.parse(iso);
    // Local time depends on the reader's zone, so it is only known in the browser.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    if (!Number.isNaN(t)) setLocal(`${new Date(t).toLocaleString()} (your local time)`);
  }, [iso]);
  return (
    <time dateTime={iso} title={local ? `${iso} · ${local}` : iso} className={className} suppressHydrationWarning>
      {children ?? formatUtc(iso, now, withDate)}
    </time>
  );
}
