/**
 * Runs once when the server starts: checks the journal and says on the command line, in one line,
 * what is wrong with it (each of them, with several). The server keeps running and every page shows the same message, so the
 * operator can fix the file without restarting anything. With Alertmanager configured, it also
 * starts the watch that ends a silence once its acknowledgement stops covering the drift. And it
 * answers the few requests Next cannot (lib/http/before-next.ts).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // TRACE and WebSocket upgrades are answered before Next, which logged stacks or hung on them.
  const { installBeforeNext, quietClientAborts } = await import("./lib/http/before-next");
  installBeforeNext({ refuseUpgrades: process.env.NODE_ENV === "production" });
  quietClientAborts();
  const { checkJournalsOrStop } = await import("./lib/db/startup-check");
  await checkJournalsOrStop();
  const { startSilenceLoop } = await import("./lib/alerting/silence-loop");
  startSilenceLoop();
}
