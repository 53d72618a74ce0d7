"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef } from "react";

const LINKS = [
  { href: "/", label: "Overview" },
  { href: "/doubtful", label: "Doubtful orders" },
  { href: "/breakers", label: "Breakers" },
  { href: "/incidents", label: "Incidents" },
  { href: "/audit", label: "Audit log" },
] as const;

/**
 * Which link the page is under: "page" for the link's own page, "true" for a page beneath it (an
 * incident under Incidents; a bot's and its symbols' pages under the Overview, where they are
 * reached from), undefined for the others.
 */
function current(pathname: string, href: string): "page" | "true" | undefined {
  if (pathname === href) return "page";
  if (href === "/") return pathname.startsWith("/bots/") ? "true" : undefined;
  return pathname.startsWith(`${href}/`) ? "true" : undefined;
}

/** The current link reads bold and underlined: on a phone's menu five equal links said nothing of where the reader was (a try-out). */
const CURRENT = "aria-[current]:font-semibold aria-[current]:underline aria-[current]:decoration-2";

/**
 * The main links: a row on a wide screen; on a phone, behind a native "Menu" disclosure so the
 * header keeps to one row. Only one of the two is displayed at a time, so a screen reader and a
 * keyboard meet each link once. The menu closes after a navigation.
 */
export function MainLinks() {
  const pathname = usePathname();
  const menu = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    if (menu.current) menu.current.open = false;
  }, [pathname]);

  return (
    <>
      <ul className="hidden flex-wrap gap-x-4 gap-y-1 text-sm sm:flex">
        {LINKS.map((l) => (
          <li key={l.href}>
            <Link href={l.href} aria-current={current(pathname, l.href)} className={`inline-block py-1 underline-offset-4 hover:underline ${CURRENT}`}>
              {l.label}
            </Link>
          </li>
        ))}
      </ul>
      <details ref={menu} className="text-sm sm:hidden">
        <summary className="cursor-pointer select-none rounded border border-slate-300 px-2 py-1 dark:border-slate-600">Menu</summary>
        <ul className="absolute inset-x-0 top-full z-20 border-b border-slate-200 bg-white px-4 py-2 shadow dark:border-slate-800 dark:bg-slate-900">
          {LINKS.map((l) => (
            <li key={l.href}>
              <Link href={l.href} aria-current={current(pathname, l.href)} className={`block py-2 underline-offset-4 hover:underline ${CURRENT}`}>
                {l.label}
              </Link>
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}
