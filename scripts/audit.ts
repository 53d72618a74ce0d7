/**
 * npm run audit -- verify [file] [--expect-head [N:HASH]]
 *
 * Recomputes the audit log's chain: keyed entries with the audit key (DRIFTWATCH_AUDIT_KEY, or the
 * audit-key file beside DRIFTWATCH_ACCOUNTS_DB), and an unkeyed prefix written before the key
 * existed with plain SHA-256. With --expect-head the chain must also still hold the last head the
 * console published outside the journal (DRIFTWATCH_AUDIT_HEAD_FILE), or the one given as N:HASH:
 * that catches a removed tail and a chain rewritten by whoever could write the journal.
 * Exit 0 with the head when everything holds; 1 naming the first bad entry; 2 for a usage error.
 * The file defaults to DRIFTWATCH_JOURNAL; with several journals (a list, or DRIFTWATCH_SOURCES) each
 * keeps its own chain and each is verified, one line per journal (a PostgreSQL source over its own
 * connection): exit 0 only when every chain holds. When that default (or the accounts file the key is
 * kept beside) is missing and the demo's exists, it names the demo's files and the command for them.
 */
import path from "node:path";
import type { AuditHead } from "../lib/audit/chain";
import { lastPublishedHead } from "../lib/audit/head";
import { auditKeyFile, findAuditKey } from "../lib/audit/key";
import { verifyAuditLog } from "../lib/audit/log";
import { verifyAuditLogPg } from "../lib/audit/pg-log";
import type { ChainCheck } from "../lib/audit/chain";
import pg from "pg";
import { redactText, withPassword, type PostgresSourceConfig } from "../lib/journal-sources";
import { openJournalReader } from "../lib/db/journal-file";
import { env } from "../lib/env";
import { demoFileHint } from "./cli-files";

const USAGE = "usage: npm run audit -- verify [file] [--expect-head [N:HASH]]";

type Args = { file: string | undefined; expectHead: false | true | AuditHead };

function parseArgs(argv: string[]): Args | string {
  const [command, ...rest] = argv;
  if (command !== "verify") return USAGE;
  const args: Args = { file: undefined, expectHead: false };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === "--expect-head") {
      const next = rest[i + 1];
      if (next !== undefined && /^\d+:/.test(next)) {
        const colon = next.indexOf(":");
        const entries = Number(next.slice(0, colon));
        const hash = next.slice(colon + 1);
        if (!Number.isSafeInteger(entries) || entries < 1 || hash.length === 0)
          return `--expect-head ${next}: give N:HASH, such as 42:hmac-sha256:3f… (from a "driftwatch: audit head" line)`;
        args.expectHead = { entries, hash };
        i++;
      } else args.expectHead = true;
    } else if (a.startsWith("-")) return `unknown option ${a}. ${USAGE}`;
    else if (args.file === undefined) args.file = a;
    else return USAGE;
  }
  return args;
}

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (typeof args === "string") {
    console.error(args);
    return 2;
  }
  const c = env();
  if (args.file === undefined && c.journals.length > 1) {
    // Each chain alone: one broken or unreadable journal neither hides nor stops the others' checks.
    let worst = 0;
    for (const j of c.journals) {
      let code: number;
      try {
        code = j.kind === "postgres" ? await verifyPg(args, j, `source ${j.name}: `) : verifyOne(argv, { ...args, file: j.file }, `source ${j.name}: `);
      } catch (error) {
        console.error(`source ${j.name}: driftwatch: ${(error as Error).message}`);
        code = 1;
      }
      worst = Math.max(worst, code);
    }
    return worst;
  }
  const only = c.journals[0];
  if (args.file === undefined && only?.kind === "postgres") return verifyPg(args, only, "");
  return verifyOne(argv, args, "");
}

const noKeyMessage = (file: string, accountsDbPath: string) =>
  `audit log of ${file}: its entries are keyed, and no audit key was found (DRIFTWATCH_AUDIT_KEY is unset and there is no ${auditKeyFile(accountsDbPath)}). Fix: set DRIFTWATCH_ACCOUNTS_DB to the console's accounts file (the key is kept beside it), or DRIFTWATCH_AUDIT_KEY to the console's key`;

/** The head the chain must still hold (--expect-head), or the reason there is none: the same for both engines. */
function expectedHead(args: Args, journal: string): { head?: AuditHead; source: string } | string {
  const c = env();
  if (args.expectHead === true) {
    const published = lastPublishedHead(c.auditHeadFile, journal);
    if (!published)
      return `audit log of ${journal}: no head was published for it in ${c.auditHeadFile}. Fix: set DRIFTWATCH_ACCOUNTS_DB to the console's accounts file (the head file is beside it) or DRIFTWATCH_AUDIT_HEAD_FILE to the console's head file, or pass --expect-head N:HASH from its "driftwatch: audit head" log line`;
    return { head: { entries: published.entries, hash: published.head }, source: ` (published ${published.at} in ${c.auditHeadFile})` };
  }
  if (args.expectHead) return { head: args.expectHead, source: " (given)" };
  return { source: "" };
}

/** The verdict's one line, the same for both engines: 0 when the chain holds, 1 naming its first bad entry. */
function report(r: ChainCheck, file: string, expect: { head?: AuditHead; source: string }, say: (l: string) => void, complain: (l: string) => void): number {
  if (r.ok) {
    const before = r.unkeyed > 0 ? `; ${r.unkeyed} of them predate the audit key (unkeyed SHA-256)` : "";
    const held = expect.head ? `; holds the published head #${expect.head.entries}${expect.source}` : "";
    say(`audit log of ${file}: ${r.entries} entries, chain verified${before}${held}, head ${r.head}`);
    return 0;
  }
  const e = r.brokenAt;
  const which = e ? `entry #${e.id} (${e.at}, ${e.actor}, ${e.action} ${e.target})` : `entry #${r.badId} (missing)`;
  const trust =
    r.untrustedFrom <= 1
      ? "No entry of it can be trusted."
      : `Entries before #${r.untrustedFrom} verify; treat #${r.untrustedFrom} and everything after it as untrusted.`;
  complain(`audit log of ${file}: chain broken at ${which}: ${r.problem}. ${trust}`);
  return 1;
}

/** A PostgreSQL source's chain, read in one query on a connection of its own. */
async function verifyPg(args: Args, j: PostgresSourceConfig, label: string): Promise<number> {
  const c = env();
  const say = (line: string) => console.log(`${label}${line}`);
  const complain = (line: string) => console.error(`${label}${line}`);
  const password = j.password();
  const client = new pg.Client({ connectionString: withPassword(j.file, password), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const key = findAuditKey({ configured: c.auditKey, accountsDbPath: c.accountsDbPath });
    const keyed = ((await client.query(`SELECT 1 FROM audit_log WHERE hash LIKE 'hmac-sha256:%' LIMIT 1`)).rowCount ?? 0) > 0;
    if (key === null && keyed) {
      complain(noKeyMessage(j.file, c.accountsDbPath));
      return 2;
    }
    const expect = expectedHead(args, j.file);
    if (typeof expect === "string") {
      complain(expect);
      return 2;
    }
    return report(await verifyAuditLogPg(client, key, expect.head), j.file, expect, say, complain);
  } catch (error) {
    complain(`driftwatch: ${j.file} could not be read (${redactText((error as Error).message, [password])}); its chain is not verified`);
    return 1;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function verifyOne(argv: string[], args: Args, label: string): number {
  const c = env();
  const say = (line: string) => console.log(`${label}${line}`);
  const complain = (line: string) => console.error(`${label}${line}`);
  const journalPath = path.resolve(args.file ?? c.journalPath);
  // During the demo the defaults are not its files: name the demo's, and the command for them.
  const alsoReads = { kind: "accounts" as const, file: c.accountsDbPath };
  const hint = args.file === undefined ? demoFileHint("journal", journalPath, { script: "audit", args: argv, alsoReads }) : undefined;
  if (hint) {
    complain(`driftwatch: ${hint}`);
    return 1;
  }
  // The journal first: a wrong path is the likeliest mistake, and says so in one line.
  const { db, info } = openJournalReader(journalPath);
  const key = findAuditKey({ configured: c.auditKey, accountsDbPath: c.accountsDbPath });
  const keyed = db.prepare(`SELECT 1 FROM audit_log WHERE hash LIKE 'hmac-sha256:%' LIMIT 1`).get() !== undefined;
  if (key === null && keyed) {
    // A missing setting, not a broken chain: say where the key was looked for.
    db.close();
    const accountsHint = demoFileHint("accounts", c.accountsDbPath, { script: "audit", args: argv });
    if (accountsHint) {
      complain(`driftwatch: ${accountsHint}`);
      return 2;
    }
    complain(noKeyMessage(info.file, c.accountsDbPath));
    return 2;
  }
  const expect = expectedHead(args, journalPath);
  if (typeof expect === "string") {
    db.close();
    complain(expect);
    return 2;
  }
  try {
    return report(verifyAuditLog(db, key, expect.head), info.file, expect, say, complain);
  } finally {
    db.close();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  console.error(`driftwatch: ${(error as Error).message}`);
  process.exitCode = 1;
}
