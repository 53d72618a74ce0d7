"use client";
import { useEffect, useSyncExternalStore } from "react";
import { LiveReadError } from "@/lib/query-options/fetch-api";

/**
 * What the page itself says, so that the halt banner above every page does not say it again: a
 * flag per thing, raised while some part of the page that says it is rendered.
 */
function pageSays() {
  let shown = 0;
  const listeners = new Set<() => void>();
  const subscribe = (listener: () => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  const emit = () => listeners.forEach((l) => l());
  const useShown = () =>
    useSyncExternalStore(
      subscribe,
      () => shown > 0,
      () => false,
    );
  const useMark = (counts: boolean) =>
    useEffect(() => {
      if (!counts) return;
      shown++;
      emit();
      return () => {
        shown--;
        emit();
      };
    }, [counts]);
  return { useShown, useMark };
}

/**
 * The journal's problem and its fix (its problem box, or its live view's banner on a journal
 * error): the banner then names the problem without saying it all again. One problem box per page:
 * a page that cannot read its journal read the same problem and fix up to five times (a new user's
 * try-out).
 */
const journalProblem = pageSays();

/** True while some part of the page shows the journal's problem and fix. */
export const useJournalProblemShown = journalProblem.useShown;

/**
 * Marks the page as showing the journal's problem while it is rendered. `error`: a live view's
 * failed read, which counts only when it is the journal's (a 503 with its message and fix).
 */
export function JournalProblemShown({ error }: { error?: Error | null }) {
  journalProblem.useMark(error === undefined || (error instanceof LiveReadError && error.kind === "journal"));
  return null;
}

/**
 * The page's own view is not current (its box says it has not been updated for N s, or cannot be
 * read right now): the banner then leaves the console's own trouble to that box and keeps only the
 * bots' alarms. The overview never showed the banner beside its box; the breakers and a bot's page
 * showed both, one under the other, saying the same (a try-out).
 */
const notCurrent = pageSays();

/** True while the page's own box says its view is not current. */
export const useNotCurrentShown = notCurrent.useShown;

/** Marks the page as saying, in its own box, that its view is not current, while `when` holds. */
export function NotCurrentShown({ when }: { when: boolean }) {
  notCurrent.useMark(when);
  return null;
}
