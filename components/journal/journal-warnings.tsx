const box = "rounded border border-amber-500 bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50";

/** "the journal was …" begins a line as "The journal was …"; "alpha: the journal …" keeps its journal's name as it is spelled. */
const capitalised = (s: string) => (s.startsWith("the ") ? `T${s.slice(1)}` : s);

/**
 * Problems with the journal that do not stop reading it (not in WAL mode), and what happened to it
 * lately (it was away, or replaced), shown for a while after.
 *
 * A notice of the second kind says what happened first and what to check after a "; ": on a phone
 * the whole of it took six lines above the page's title for ten minutes, so its first part is the
 * line, and the rest opens under it.
 *
 * `failing`: the page's latest read failed, and the problem banner says what is wrong now. A notice
 * read before it (the journal was away earlier) is not shown beside it, where it would read as the
 * current outage's.
 */
export function JournalWarnings({ warnings, failing = false }: { warnings: readonly string[]; failing?: boolean }) {
  if (failing) return null;
  return (
    <>
      {warnings.map((w) => {
        const cut = w.indexOf("; ");
        if (cut < 0)
          return (
            <p key={w} role="alert" className={box}>
              {w}
            </p>
          );
        return (
          <div key={w} role="alert" className={box} data-testid="journal-notice">
            <details>
              <summary className="cursor-pointer">
                {capitalised(w.slice(0, cut))}. <span className="underline">What to check</span>
              </summary>
              <p className="mt-1">{capitalised(w.slice(cut + 2))}</p>
            </details>
          </div>
        );
      })}
    </>
  );
}
