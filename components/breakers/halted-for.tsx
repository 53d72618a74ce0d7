"use client";
import { useNow } from "@/components/live/use-now";
import { formatDuration } from "@/lib/text/format";

/** How long a halt has lasted, counting every second on its own, so the rest of the board need not re-render. */
export function HaltedFor({ since }: { since: string }) {
  const now = useNow();
  // The server's clock and the browser's differ by the time to load: not a mismatch worth a warning.
  return <span suppressHydrationWarning>{formatDuration(now - Date.parse(since))}</span>;
}
