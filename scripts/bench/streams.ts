/**
 * The benchmark's open overviews in a process of their own (at a low CPU priority, like the
 * pollers): CLIENTS streams of GET /api/live?views=overview, each watching one probe line (its
 * `theirs` and drift class) for the changes the benchmark commits.
 *
 * Driven over IPC: it sends {ready: summary} once every stream has its first view (or after 60 s);
 * {report: true} answers with {summary}; {stop: true} closes every stream, answers {summary} and exits.
 * Usage: tsx scripts/bench/streams.ts URL CLIENTS BOT SYMBOL
 */
import { probeMarker, ViewerFleet } from "../../tools/bench/sse-load";

const [url, clients, bot, symbol] = process.argv.slice(2);
if (!url || !clients || !bot || !symbol || !process.send) {
  console.error("usage (forked with IPC): tsx scripts/bench/streams.ts URL CLIENTS BOT SYMBOL");
  process.exit(2);
}
const send = (m: unknown) => new Promise<void>((resolve) => process.send!(m, () => resolve()));
const fleet = new ViewerFleet({ url, views: ["overview"], marker: probeMarker(bot, symbol) });
process.on("message", (m: { report?: boolean; stop?: boolean }) => {
  if (m.report) void send({ summary: fleet.summary() });
  if (m.stop) {
    fleet.close();
    void send({ summary: fleet.summary() }).then(() => process.exit(0));
  }
});
await fleet.open(Number(clients));
await fleet.ready(60_000);
await send({ ready: fleet.summary() });
