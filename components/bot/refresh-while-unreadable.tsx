"use client";
import { useRouter } from "next/navigation";
import { useEffect } from "react";

const EVERY_MS = 3_000;

/**
 * On a bot's pages (the bot, its symbols) while the journal cannot be read: render the page again
 * every few seconds, so that it comes back by itself once the journal can be read. The shared retry
 * (components/journal/retry-when-readable.tsx) waits for the overview to answer, which with several
 * journals it does while one of them is unreadable: it refreshed once and never again.
 */
export function RefreshWhileUnreadable() {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(() => router.refresh(), EVERY_MS);
    return () => clearInterval(timer);
  }, [router]);
  return (
    <p className="mt-3 text-sm" data-testid="refresh-while-unreadable">
      This page checks again every {EVERY_MS / 1000} s and comes back by itself once the journal can be read.
    </p>
  );
}
