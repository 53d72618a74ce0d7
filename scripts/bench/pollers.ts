/**
 * The benchmark's pollers in a process of their own, so they can run at a low CPU priority: they
 * stand for browsers on other machines, and on a 2-core host they would otherwise take the CPU the
 * bot and the console are measured on. Prints one JSON line: requests, errors, latencies (ms).
 * Usage: tsx scripts/bench/pollers.ts DURATION_MS CLIENTS INTERVAL_MS URL...
 */
import { poll } from "../../tools/bench/http-load";

const [duration, clients, interval, ...urls] = process.argv.slice(2);
if (!duration || !clients || !interval || urls.length === 0) {
  console.error("usage: tsx scripts/bench/pollers.ts DURATION_MS CLIENTS INTERVAL_MS URL...");
  process.exit(2);
}
const result = await poll(urls, Number(clients), Number(interval), Number(duration));
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
