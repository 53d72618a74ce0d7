"use client";
import { formatAge } from "@/lib/text/format";
import { useNow } from "./use-now";

/** "updated 1 s ago", counting, so a frozen page cannot pass for a live one. */
export function LiveStatus({ updatedAt, failing }: { updatedAt: number; failing: boolean }) {
  const now = useNow();
  const age = updatedAt > 0 ? Math.max(0, now - updatedAt) : null;
  return (
    <p className="text-sm text-slate-600 dark:text-slate-300" data-testid="live-status" aria-live="off">
      {/* A steady dot: the counting age is what proves the page live. An endless pulse kept Chromium
          busy at over a core per open tab without a GPU (and drains a phone on call). */}
      <span aria-hidden className={`mr-1.5 inline-block size-2 rounded-full ${failing ? "bg-red-600" : "bg-sky-500"}`} />
      {failing ? "not updating" : "live"} · updated{" "}
      {/* The server renders its own now; the browser's differs by the load time. Not a mismatch worth a re-render. */}
      <span data-testid="updated-ago" suppressHydrationWarning>
        {formatAge(age)}
      </span>{" "}
      ago
    </p>
  );
}
