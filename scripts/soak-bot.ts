/**
 * The soak's bot process (tools/soak/bot.ts), started by scripts/soak.ts as a real second process
 * writing the journal beside the console:
 *
 *   node --import tsx scripts/soak-bot.ts --journal FILE --seconds N --report OUT.json [--rate 250]
 *     [--incident-every 12] [--first-incident 4]
 *
 * Writes its report (every write and row it confirmed, every SQLITE_BUSY it met) to --report when
 * the time is up or on SIGTERM, then exits 0. Exits 1 only when it could not start or report.
 */
import fs from "node:fs";
import { parseArgs } from "node:util";
import { openJournalWriter } from "../lib/db/journal-file";
import { runSoakBot } from "../tools/soak/bot";

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      journal: { type: "string" },
      seconds: { type: "string" },
      report: { type: "string" },
      rate: { type: "string", default: "250" },
      "incident-every": { type: "string", default: "12" },
      "first-incident": { type: "string", default: "4" },
    },
  });
  const seconds = Number(values.seconds);
  const rate = Number(values.rate);
  const incidentEvery = Number(values["incident-every"]);
  const firstIncident = Number(values["first-incident"]);
  if (!values.journal || !values.report || !(seconds > 0) || !(rate > 0) || !(incidentEvery >= 0) || !(firstIncident >= 0)) {
    console.error("usage: soak-bot --journal FILE --seconds N --report OUT.json [--rate 250] [--incident-every 12] [--first-incident 4]");
    return 2;
  }
  let stop = false;
  process.on("SIGTERM", () => (stop = true));
  process.on("SIGINT", () => (stop = true));
  const { db } = openJournalWriter(values.journal);
  try {
    const report = await runSoakBot({
      db,
      seconds,
      rate,
      incidentEveryMs: incidentEvery * 1000,
      firstIncidentAfterMs: firstIncident * 1000,
      shouldStop: () => stop,
    });
    fs.writeFileSync(values.report, JSON.stringify(report));
    console.log(`soak-bot: ${report.writes} writes in ${report.seconds.toFixed(1)} s, ${report.busy} SQLITE_BUSY, ${report.errors} other errors`);
  } finally {
    db.close();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`soak-bot: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
