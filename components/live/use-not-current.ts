"use client";
import { dataAge } from "@/lib/live/not-current";
import { useHydrated } from "./use-hydrated";
import { useNow } from "./use-now";

/**
 * Whether the page's data is not current (lib/live/not-current.ts), judged again every second on
 * the reader's clock, so a page whose answers stop coming turns by itself. `updatedAt` is when the
 * data was last known current (useLiveUpdatedAt). Only the browser knows how old the data is: the
 * server and hydration render it as current, and the first client render agrees with them.
 */
export function useNotCurrent(updatedAt: number): { notCurrent: boolean; ageMs: number } {
  const now = useNow();
  const hydrated = useHydrated();
  const age = dataAge(updatedAt, now);
  return hydrated ? age : { ageMs: age.ageMs, notCurrent: false };
}
