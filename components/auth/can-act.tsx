"use client";
import { createContext, useContext } from "react";

/**
 * Whether the signed-in reader is an operator, for components deep in a live view (a bot's card)
 * that show an action only to those who may take it. False unless a page says otherwise: a
 * forgotten provider hides a button, it never offers one. The server actions check again anyway.
 * `viewer`: signed in, but a viewer; such a reader is not sent to "sign in" as if the console had
 * not noticed them.
 */
const CanAct = createContext({ canAct: false, viewer: false });

export function CanActProvider({ canAct, viewer = false, children }: { canAct: boolean; viewer?: boolean; children: React.ReactNode }) {
  return <CanAct value={{ canAct, viewer: !canAct && viewer }}>{children}</CanAct>;
}

export function useCanAct(): boolean {
  return useContext(CanAct).canAct;
}

/** Signed in as a viewer (never true for an operator or a visitor). */
export function useSignedInViewer(): boolean {
  return useContext(CanAct).viewer;
}
