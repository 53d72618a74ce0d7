import "server-only";
import pg from "pg";
import { env, EnvError, type Env } from "../env";
import { redactText, withPassword } from "../journal-sources";
import { CLASH_ADVICE, clashFact } from "./console";
import { JournalError, openJournalReader, READ_BUSY_TIMEOUT_MS } from "./journal-file";

/** Bot ids two journals both hold: the console cannot tell which one an action is for. */
export class BotClashError extends Error {
  override name = "BotClashError";
}

/**
 * Says on the command line, one line per journal, what each is and what is wrong with it. A
 * journal that cannot be read is no reason to stop: every page says the same and it is picked up
 * once fixed. A bot id in two journals is: it throws BotClashError naming both sources.
 */
export async function checkJournalAtStart(): Promise<void> {
  let journals: Env["journals"];
  try {
    journals = env().journals;
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(`driftwatch: ${error.message}`);
      return;
    }
    throw error;
  }
  const owner = new Map<string, (typeof journals)[number]>();
  const clashes: string[] = [];
  // Every PostgreSQL source asked at once: several unreachable servers hold the start for one
  // bounded wait, not one after another; their answers are still taken in the configured order.
  const pgIds = new Map(journals.length > 1 ? journals.flatMap((s) => (s.kind === "postgres" ? [[s.name, pgBotIds(s)] as const] : [])) : []);
  for (const source of journals) {
    const label = journals.length > 1 ? `source ${source.name}: ` : "";
    if (source.kind === "postgres") {
      // Checked on the first request and every one after (lib/db/pg-source.ts).
      console.log(`driftwatch: ${label}reading the PostgreSQL journal at ${source.file} (checked on every request)`);
      if (journals.length > 1) {
        const ids = await pgIds.get(source.name)!;
        if (typeof ids === "string") {
          // Not a reason to stop, as for a file: its bots join the clash check from what it shows once it answers.
          console.error(`driftwatch: ${label}cannot be read at start (${ids}); its bot ids are checked against the others once it answers`);
          continue;
        }
        for (const id of ids) {
          const other = owner.get(id);
          if (other) clashes.push(clashFact(id, other, source));
          else owner.set(id, source);
        }
      }
      continue;
    }
    try {
      // Like every read of the console: a locked journal is reported at once, not waited for.
      const { db, info } = openJournalReader(source.file, { busyTimeoutMs: READ_BUSY_TIMEOUT_MS });
      try {
        console.log(`driftwatch: ${label}reading journal ${info.file} (schema version ${info.schemaVersion}, ${info.journalMode})`);
        if (journals.length > 1) {
          const ids = db.prepare(`SELECT bot_id FROM bots UNION SELECT bot_id FROM breakers`).pluck().all() as string[];
          for (const id of ids) {
            const other = owner.get(id);
            if (other) clashes.push(clashFact(id, other, source));
            else owner.set(id, source);
          }
        }
      } finally {
        db.close();
      }
    } catch (error) {
      if (error instanceof JournalError) console.error(`driftwatch: ${label}${error.message}`);
      else console.error(`driftwatch: ${label}journal ${source.file} cannot be opened: ${(error as Error).message}`);
    }
  }
  // The advice once, after every clash (a fleet made from copies of one journal has many).
  if (clashes.length > 0) throw new BotClashError(`driftwatch configuration is invalid: ${clashes.join("; ")}. ${CLASH_ADVICE}`);
}

/**
 * A PostgreSQL source's bot ids, over one short-lived connection with bounded waits (an unreachable
 * server holds the start for a few seconds, not for good); or why they could not be read, password cut out.
 */
async function pgBotIds(source: Extract<Env["journals"][number], { kind: "postgres" }>): Promise<string[] | string> {
  const password = source.password();
  const client = new pg.Client({
    connectionString: withPassword(source.file, password),
    connectionTimeoutMillis: 3_000,
    query_timeout: 5_000,
    application_name: "driftwatch-console-start",
  });
  // An error the server sends after the query (it shuts down) must not take the start with it.
  client.on("error", () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ bot_id: string }>(`SELECT bot_id FROM bots UNION SELECT bot_id FROM breakers`);
    return rows.map((r) => r.bot_id);
  } catch (error) {
    return redactText((error as Error).message, [password]);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The server's start: checkJournalAtStart, and the process stopped on a bot id in two journals. */
export async function checkJournalsOrStop(): Promise<void> {
  try {
    await checkJournalAtStart();
  } catch (error) {
    // No action could be routed safely, so do not serve at all.
    if (!(error instanceof BotClashError)) throw error;
    console.error(`driftwatch: ${error.message}`);
    process.exit(1);
  }
}
