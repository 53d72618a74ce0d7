"use client";
import { useEffect, useSyncExternalStore } from "react";
import { LiveReadError } from "@/lib/query-options/fetch-api";

/**
 * Whether the page itself says what is wrong with the journal, and the fix (its problem box, or
 * its live view's banner on a journal error): the halt banner above every page then names the
 * problem without saying it all again. One problem box per page: a page that cannot read its
 * journal read the same problem and fix up to five times (a new user's try-out).
 */
let shown = 0;
const listeners = new Set<() => void>();
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};
const emit = () => listeners.forEach((l) => l());

/** True while some part of the page shows the journal's problem and fix. */
export function useJournalProblemShown(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => shown > 0,
    () => false,
  );
}

/**
 * Marks the page as showing the journal's problem while it is rendered. `error`: a live view's
 * failed read, which counts only when it is the journal's (a 503 with its message and fix).
 */
export function JournalProblemShown({ error }: { error?: Error | null }) {
  const counts = error === undefined || (error instanceof LiveReadError && error.kind === "journal");
  useEffect(() => {
    if (!counts) return;
    shown++;
    emit();
    return () => {
      shown--;
      emit();
    };
  }, [counts]);
  return null;
}
