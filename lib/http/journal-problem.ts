/**
 * A journal problem as a reader is shown it. The journal's absolute path says where the bot runs
 * and as whom (/home/trader/…): a signed-in account reads it whole, a reader who is not signed in
 * reads the file's name alone, with the problem and the fix otherwise intact. Pure: the caller says
 * whether the reader is signed in.
 */
import path from "node:path";
import type { JournalError } from "../db/journal-file";

export interface JournalProblemView {
  code: JournalError["code"];
  file: string;
  problem: string;
  fix: string;
  message: string;
}

export const PATH_HIDDEN_NOTE = "sign in to see the full path";

export function journalProblemFor(
  error: Pick<JournalError, "code" | "file" | "problem" | "fix" | "message">,
  reader: { signedIn: boolean },
): JournalProblemView {
  const { code, file, problem, fix, message } = error;
  if (reader.signedIn) return { code, file, problem, fix, message };
  const name = path.basename(file);
  const folder = path.dirname(file);
  // The file's path first, then its folder alone (a message may name either).
  const hide = (text: string) => text.split(file).join(name).split(folder).join("…");
  return { code, file: `${name} (${PATH_HIDDEN_NOTE})`, problem: hide(problem), fix: hide(fix), message: hide(message) };
}
