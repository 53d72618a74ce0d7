import { SkipLink } from "@/components/nav/skip-link";
import type { Metadata, Viewport } from "next";
import Link from "next/link";
import { MainLinks } from "@/components/nav/main-links";
import { AccountNav } from "@/components/auth/account-nav";
import { Favicon, HaltSignal } from "@/components/live/halt-signal";
import { Providers } from "@/components/providers";
import { connection } from "next/server";
import { getActor } from "@/lib/auth/session";
import { env } from "@/lib/env";
import { readHaltSignalStart } from "@/lib/queries/screens";
import { startTitlePrefix } from "@/lib/live/halt-signal";
import { cache } from "react";
import "./globals.css";

/**
 * Every page's title starts as the halt signal's first read says (HALTED or ?), in the HTML: a tab
 * opened in the background, or a page without scripts, was named HALTED only once a script ran.
 * The signal keeps it current from then on (components/live/halt-signal.tsx). The sign-in page's
 * title is absolute: it shows no signal.
 */
export async function generateMetadata(): Promise<Metadata> {
  const prefix = startTitlePrefix(await haltSignalStart());
  return {
    title: { default: `${prefix}driftwatch`, template: `${prefix}%s` },
    description: "The on-call console for when a trading bot and its exchange disagree.",
  };
}

export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#f8fafc" },
    { media: "(prefers-color-scheme: dark)", color: "#0f172a" },
  ],
};

/**
 * The halt signal's first read, so the banner and the favicon are in the page's HTML. Nothing for a
 * reader the console would not let read (with sign-in required, only the sign-in page gets here).
 * Once per request: the title's metadata and the layout share it.
 */
const haltSignalStart = cache(async () => {
  await connection();
  const actor = await getActor();
  if (actor === null && env().requireSignIn) return null;
  return readHaltSignalStart({ names: actor !== null });
});

export default async function RootLayout({ children }: Readonly<{ children: React.ReactNode }>) {
  const start = await haltSignalStart();
  return (
    <html lang="en">
      <body className="min-h-dvh bg-slate-50 font-sans text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
        <Favicon start={start} />
        <SkipLink />
        <Providers>
          <header className="border-b border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
            <nav aria-label="Main" className="relative mx-auto flex max-w-6xl flex-wrap items-center gap-x-3 gap-y-2 px-4 py-3 sm:gap-x-6">
              <Link href="/" className="font-semibold tracking-tight">
                driftwatch
              </Link>
              <MainLinks />
              <div className="ml-auto">
                <AccountNav />
              </div>
            </nav>
          </header>
          {/* Without JavaScript nothing on a page updates and no operator's form can be sent: say so,
              and hide the "live · updated 0 s ago" the server rendered, which would never move. */}
          <noscript>
            <style>{`[data-testid="live-status"]{display:none}`}</style>
            <p
              role="alert"
              data-testid="no-script"
              className="border-b border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-950 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
            >
              JavaScript is off: this page shows the journal as it was when the page loaded and does not update by itself (reload to read it again), and
              operators&apos; actions need JavaScript.
            </p>
          </noscript>
          <HaltSignal start={start} />
          {/* Focusable by the skip link alone (tabIndex -1), so "Skip to content" lands here. */}
          <main id="main" tabIndex={-1} className="mx-auto max-w-6xl px-4 py-6 focus:outline-none">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
