"use client";
import { useEffect } from "react";

/**
 * A background tab must tell a halt at a glance: the title and the favicon change while any bot
 * is halted, and turn grey (never green) while the console cannot tell.
 */
export function HaltSignal({ halted, unsure, title = "driftwatch" }: { halted: string[]; unsure: boolean; title?: string }) {
  useEffect(() => {
    document.title = halted.length > 0 ? `HALTED · ${title}` : unsure ? `? · ${title}` : title;
    const icon = halted.length > 0 ? "/favicon-halted.svg" : "/favicon.svg";
    let link = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    if (!link) {
      link = document.createElement("link");
      link.rel = "icon";
      document.head.appendChild(link);
    }
    link.type = "image/svg+xml";
    link.href = icon;
  }, [halted, unsure, title]);
  return null;
}
