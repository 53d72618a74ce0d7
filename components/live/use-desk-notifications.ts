"use client";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { deskEvents, newDeskEvents, type DeskBot, type DeskLine } from "@/lib/notify/desk-events";
import { readTold, useDeskSetting, writeTold } from "./desk-setting";

/**
 * Desktop notifications while a console tab is open (no service worker): on each new overview the
 * halt signal receives, notify what was not told before in this browser, tagged with the event's
 * key; a click brings the tab to the front on the page that settles it.
 */
export function useDeskNotifications(data: { bots: readonly DeskBot[]; lines: readonly DeskLine[] } | undefined): void {
  const setting = useDeskSetting();
  const router = useRouter();
  useEffect(() => {
    if (setting !== "on" || !data) return;
    // Read at each answer, not kept in memory: another tab of this browser may have told it already.
    const { notify, remember } = newDeskEvents(deskEvents(data), readTold());
    writeTold(remember);
    for (const e of notify) {
      try {
        const n = new Notification(e.title, { body: e.body, tag: e.key });
        n.onclick = (ev) => {
          ev.preventDefault();
          window.focus();
          router.push(e.href);
          n.close();
        };
      } catch {
        // A browser that allows the API but not the constructor (Android Chrome) shows nothing.
      }
    }
  }, [setting, data, router]);
}
