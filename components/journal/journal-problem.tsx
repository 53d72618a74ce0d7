import { asSentence } from "@/lib/text/sentence";
import { WrappingText } from "@/components/ui/wrapping-text";
import { JournalProblemShown } from "./journal-problem-shown";
import type { JournalError } from "@/lib/db/journal-file";

/** How often a page that cannot read its journal asks again, in seconds (RetryWhenReadable; said on the page). */
export const RETRY_EVERY_S = 2;

/**
 * The whole page when the journal cannot be read: what is wrong, with which file, and the fix.
 * Nothing else is shown, so nothing can look healthy. `source`: which of several journals it is.
 * The message says the problem and the fix once; the file is told apart only for what the message
 * leaves out (a reader who is not signed in is told the path is hidden).
 */
export function JournalProblem({ error, source }: { error: Pick<JournalError, "code" | "file" | "problem" | "fix" | "message">; source?: string }) {
  return (
    <section
      role="alert"
      aria-labelledby="journal-problem-title"
      className="rounded-lg border-2 border-red-700 bg-red-50 p-5 text-red-950 dark:bg-red-950 dark:text-red-50"
    >
      <h1 id="journal-problem-title" className="text-xl font-bold">
        {source ? `Journal ${source} cannot be read` : "The journal cannot be read"}
      </h1>
      <p className="mt-2 whitespace-pre-line break-words text-sm" data-testid="journal-error">
        <WrappingText text={asSentence(error.message)} />
      </p>
      {error.file && (
        <dl className="mt-4 grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className="font-semibold">File</dt>
          <dd className="break-all font-mono">{error.file}</dd>
        </dl>
      )}
      <JournalProblemShown />
      <p className="mt-4 text-sm">
        No bot is shown as healthy while the journal is unreadable. This page checks again every {RETRY_EVERY_S} s and comes back by itself once the journal can
        be read.
      </p>
    </section>
  );
}
