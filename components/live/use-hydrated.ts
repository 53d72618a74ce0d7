"use client";
import { useSyncExternalStore } from "react";

const never = () => () => {};

/**
 * False while the server renders and while the browser hydrates, true after. Anything that depends
 * on the reader's clock (an age, "is this stale") waits for it, so the server's HTML and the first
 * client render agree and React keeps the server's DOM (and the reader's focus).
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
