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
            <Link href={l.href} className="inline-block py-1 underline-offset-4 hover:underline">
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
              <Link href={l.href} className="block py-2 underline-offset-4 hover:underline">
                {l.label}
              </Link>
            </li>
          ))}
        </ul>
      </details>
    </>
  );
}
