"use client";
import { createContext, useContext } from "react";

/**
 * Whether the signed-in reader is an operator, for components deep in a live view (a bot's card)
 * that show an action only to those who may take it. False unless a page says otherwise: a
 * forgotten provider hides a button, it never offers one. The server actions check again anyway.
 */
const CanAct = createContext(false);

export function CanActProvider({ canAct, children }: { canAct: boolean; children: React.ReactNode }) {
  return <CanAct value={canAct}>{children}</CanAct>;
}

export function useCanAct(): boolean {
  return useContext(CanAct);
}
