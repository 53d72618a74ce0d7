"use client";

/**
 * "Skip to content": focus moves to the page's main region, and the address stays. A bare
 * `#main` made a history entry Next's router does not know, and Back from the next page opened
 * showed that page's content under this page's address (an e2e found it on /breakers). Without
 * JavaScript the link is a plain fragment link, which the browser handles whole. Above the header
 * when it shows (a try-out read "driftwatch" printed over it).
 */
export function SkipLink() {
  return (
    <a
      href="#main"
      onClick={(event) => {
        const main = document.getElementById("main");
        if (!main) return;
        event.preventDefault();
        main.focus();
        main.scrollIntoView();
      }}
      className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-slate-900 focus:shadow-lg focus:ring-2 focus:ring-slate-900"
    >
      Skip to content
    </a>
  );
}
