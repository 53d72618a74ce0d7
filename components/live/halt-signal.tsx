"use client";
import { useEffect, useSyncExternalStore } from "react";

/**
 * A background tab must tell a halt at a glance: the title and the favicon change while any bot
 * is halted, and the title turns to "?" (never a plain, healthy one) while the console cannot tell.
 *
 * The favicon has one owner, <Favicon/> in the root layout: a page's <HaltSignal/> only says which
 * icon it wants. Changing a <link> that React rendered from outside React loses the change when
 * React hydrates or re-renders that link (two icons, the healthy one last).
 */
const PLAIN = "/favicon.svg";
const HALTED = "/favicon-halted.svg";

let wanted = PLAIN;
const listeners = new Set<() => void>();
function want(icon: string) {
  if (icon === wanted) return;
  wanted = icon;
  for (const l of listeners) l();
}
function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function Favicon() {
  const href = useSyncExternalStore(
    subscribe,
    () => wanted,
    () => PLAIN,
  );
  // React 19 hoists a <link> into <head>, on the server and in the browser.
  return <link rel="icon" type="image/svg+xml" href={href} />;
}

export function HaltSignal({ halted, unsure, title = "driftwatch" }: { halted: string[]; unsure: boolean; title?: string }) {
  const isHalted = halted.length > 0;
  useEffect(() => {
    want(isHalted ? HALTED : PLAIN);
    // The title belongs to Next's metadata, which may arrive (streamed) or be rendered again after
    // this runs: keep putting this one back whenever the head changes, until the page goes.
    const text = isHalted ? `HALTED · ${title}` : unsure ? `? · ${title}` : title;
    const apply = () => {
      if (document.title !== text) document.title = text;
    };
    apply();
    const observer = new MutationObserver(apply);
    observer.observe(document.head, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [isHalted, unsure, title]);
  // A page that does not watch the breakers (audit, login) shows the plain icon, not a stale halt.
  useEffect(() => () => want(PLAIN), []);
  return null;
}
