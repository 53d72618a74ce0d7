import type { JournalError } from "@/lib/db/journal-file";
import { JournalProblem } from "./journal-problem";
import { RetryWhenReadable } from "./retry-when-readable";

/** What every page shows instead of itself while the journal cannot be read; it reloads once it can. */
export function JournalUnavailable({ error }: { error: JournalError }) {
  return (
    <>
      <JournalProblem error={error} />
      <RetryWhenReadable />
    </>
  );
}
