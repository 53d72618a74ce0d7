import "server-only";
/**
 * The console's watch over the silences it made (lib/alerting/silences.ts): every few seconds, in
 * the server process, silences whose acknowledgement stopped covering the drift are expired, so a
 * page that was quieted for a drift of 200 fires again once it is 300. Started once, from
 * instrumentation.ts, and only when DRIFTWATCH_ALERTMANAGER_URL is set.
 */
import { authContext } from "../auth/context";
import { consoleSources } from "../db/console";
import { env } from "../env";
import { AlertmanagerClient } from "./alertmanager";
import { sweepSilences } from "./silences";

/** Well inside Alertmanager's group_wait / repeat_interval: the page comes back within one sweep. */
const SWEEP_MS = 10_000;

const holder = globalThis as unknown as { __driftwatchSilenceLoop?: ReturnType<typeof setInterval>; __driftwatchSilenceLoopLogged?: string };

function logOnce(line: string): void {
  if (holder.__driftwatchSilenceLoopLogged === line) return;
  holder.__driftwatchSilenceLoopLogged = line;
  console.error(line);
}

export function startSilenceLoop(): void {
  if (holder.__driftwatchSilenceLoop) return;
  let url: string | null;
  try {
    url = env().alertmanagerUrl;
  } catch {
    return; // the configuration error is reported by the start-up check
  }
  if (!url) return;
  const client = new AlertmanagerClient(url);
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      // Each journal's silences against that journal; one that cannot be read waits (its pages say why).
      for (const source of consoleSources().sources) {
        const journal = source.journal.get();
        if (!journal.ok) continue;
        const ended = await sweepSilences({ client, accounts: authContext().db, journalFile: source.file, journal: journal.db.$client, now: new Date() });
        for (const e of ended) if (e.ok) console.log(`driftwatch: expired Alertmanager silence ${e.silenceId}: ${e.why}`);
      }
      holder.__driftwatchSilenceLoopLogged = undefined;
    } catch (error) {
      logOnce(`driftwatch: the watch over Alertmanager silences failed; retrying every ${SWEEP_MS / 1000} s: ${(error as Error).message}`);
    } finally {
      running = false;
    }
  };
  holder.__driftwatchSilenceLoop = setInterval(() => void tick(), SWEEP_MS);
  holder.__driftwatchSilenceLoop.unref();
  console.log(`driftwatch: acknowledgements silence their pages in Alertmanager at ${url}`);
}
