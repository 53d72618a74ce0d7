"use client";
import { useSyncExternalStore } from "react";

/**
 * Whether this browser asked for desktop notifications (per browser, in localStorage, shared by its
 * tabs) and what it may show: "unsupported" (no Notification API), "denied" (blocked in the
 * browser's settings), "off", or "on" (asked for and permitted).
 */
export type DeskSetting = "unsupported" | "denied" | "off" | "on";

const ON_KEY = "driftwatch.notify";
/** The keys of the events already told (lib/notify/desk-events.ts); absent: none yet. */
export const TOLD_KEY = "driftwatch.notified";

const listeners = new Set<() => void>();
function changed() {
  for (const l of listeners) l();
}
function subscribe(l: () => void) {
  listeners.add(l);
  // Another tab of this browser turned it on or off.
  window.addEventListener("storage", l);
  return () => {
    listeners.delete(l);
    window.removeEventListener("storage", l);
  };
}

function read(): DeskSetting {
  if (typeof Notification === "undefined") return "unsupported";
  if (Notification.permission === "denied") return "denied";
  let asked: string | null = null;
  try {
    asked = localStorage.getItem(ON_KEY);
  } catch {
    // Storage refused (a private window's policy): then it is off.
  }
  return asked === "on" && Notification.permission === "granted" ? "on" : "off";
}

export function useDeskSetting(): DeskSetting {
  return useSyncExternalStore(subscribe, read, () => "off");
}

/** Turn notifications on (asking the browser's permission, only from this click) or off. */
export async function setDeskSetting(on: boolean): Promise<DeskSetting> {
  try {
    if (!on) {
      localStorage.removeItem(ON_KEY);
    } else if (typeof Notification !== "undefined") {
      const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
      if (permission === "granted") {
        localStorage.setItem(ON_KEY, "on");
        // What is happening now is not news to the person who just turned this on.
        localStorage.removeItem(TOLD_KEY);
      }
    }
  } catch {
    // Storage refused: the setting stays as it reads.
  }
  changed();
  return read();
}

export function readTold(): string[] | null {
  try {
    const raw = localStorage.getItem(TOLD_KEY);
    const parsed: unknown = raw === null ? null : JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((k): k is string => typeof k === "string") : null;
  } catch {
    return null;
  }
}

export function writeTold(keys: string[]): void {
  try {
    localStorage.setItem(TOLD_KEY, JSON.stringify(keys));
  } catch {
    // Storage refused: the worst case is a notification told again after a reload.
  }
}
