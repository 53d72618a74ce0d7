/**
 * Runs once when the server starts: checks the journal and says on the command line, in one line,
 * what is wrong with it. The server keeps running and every page shows the same message, so the
 * operator can fix the file without restarting anything.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { checkJournalAtStart } = await import("./lib/db/startup-check");
  checkJournalAtStart();
}
