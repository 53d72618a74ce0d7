import { getActor } from "@/lib/auth/session";
import type { JournalError } from "@/lib/db/journal-file";
import { journalProblemFor } from "@/lib/http/journal-problem";
import { JournalProblem } from "./journal-problem";
import { RetryWhenReadable } from "./retry-when-readable";

/**
 * What every page shows instead of itself while the journal cannot be read; it reloads once it can.
 * `source`: the journal's name, with several journals. The journal's full path only to a signed-in reader (lib/http/journal-problem.ts).
 */
export async function JournalUnavailable({ error, source }: { error: JournalError; source?: string }) {
  const shown = journalProblemFor(error, { signedIn: (await getActor()) !== null });
  return (
    <>
      <JournalProblem error={shown} source={source} />
      <RetryWhenReadable source={source} />
    </>
  );
}
