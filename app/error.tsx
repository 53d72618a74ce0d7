"use client";

/** Anything unexpected: say so plainly, never pretend the bots are fine. */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <section role="alert" className="rounded-lg border-2 border-red-700 bg-red-50 p-5 text-red-950 dark:bg-red-950 dark:text-red-50">
      <h1 className="text-xl font-bold">This page failed to load</h1>
      <p className="mt-2 text-sm">The console hit an unexpected error, so it cannot tell you the state of any bot. Nothing here is healthy until it loads.</p>
      {error.digest && (
        <p className="mt-2 font-mono text-sm">
          Server log reference: <span>{error.digest}</span>
        </p>
      )}
      <button type="button" onClick={reset} className="mt-4 rounded bg-red-800 px-3 py-2 font-semibold text-white hover:bg-red-900 focus-visible:outline-2">
        Try again
      </button>
    </section>
  );
}
