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
 * keeps its own chain and each is verified, one line per journal: exit 0 only when every chain holds. When that default (or the accounts file the key is
 * kept beside) is missing and the demo's exists, it names the demo's files and the command for them.
 */
import path from "node:path";
import type { AuditHead } from "../lib/audit/chain";
import { lastPublishedHead } from "../lib/audit/head";
import { auditKeyFile, findAuditKey } from "../lib/audit/key";
import { verifyAuditLog } from "../lib/audit/log";
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

function main(argv: string[]): number {
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
      if (j.kind === "postgres") {
        // Not vouched for: a chain this command cannot read fails the check rather than passing it by silence.
        console.error(`source ${j.name}: driftwatch: ${j.file} is a PostgreSQL journal; this command does not verify PostgreSQL chains yet`);
        worst = Math.max(worst, 1);
        continue;
      }
      try {
        code = verifyOne(argv, { ...args, file: j.file }, `source ${j.name}: `);
      } catch (error) {
        console.error(`source ${j.name}: driftwatch: ${(error as Error).message}`);
        code = 1;
      }
      worst = Math.max(worst, code);
    }
    return worst;
  }
  return verifyOne(argv, args, "");
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
  let expectHead: AuditHead | undefined;
  let headSource = "";
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
    complain(
      `audit log of ${info.file}: its entries are keyed, and no audit key was found (DRIFTWATCH_AUDIT_KEY is unset and there is no ${auditKeyFile(c.accountsDbPath)}). Fix: set DRIFTWATCH_ACCOUNTS_DB to the console's accounts file (the key is kept beside it), or DRIFTWATCH_AUDIT_KEY to the console's key`,
    );
    return 2;
  }
  if (args.expectHead === true) {
    const published = lastPublishedHead(c.auditHeadFile, journalPath);
    if (!published) {
      db.close();
      complain(
        `audit log of ${journalPath}: no head was published for it in ${c.auditHeadFile}. Fix: set DRIFTWATCH_ACCOUNTS_DB to the console's accounts file (the head file is beside it) or DRIFTWATCH_AUDIT_HEAD_FILE to the console's head file, or pass --expect-head N:HASH from its "driftwatch: audit head" log line`,
      );
      return 2;
    }
    expectHead = { entries: published.entries, hash: published.head };
    headSource = ` (published ${published.at} in ${c.auditHeadFile})`;
  } else if (args.expectHead) {
    expectHead = args.expectHead;
    headSource = " (given)";
  }
  try {
    const r = verifyAuditLog(db, key, expectHead);
    if (r.ok) {
      const before = r.unkeyed > 0 ? `; ${r.unkeyed} of them predate the audit key (unkeyed SHA-256)` : "";
      const held = expectHead ? `; holds the published head #${expectHead.entries}${headSource}` : "";
      say(`audit log of ${info.file}: ${r.entries} entries, chain verified${before}${held}, head ${r.head}`);
      return 0;
    }
    const e = r.brokenAt;
    const which = e ? `entry #${e.id} (${e.at}, ${e.actor}, ${e.action} ${e.target})` : `entry #${r.badId} (missing)`;
    const trust =
      r.untrustedFrom <= 1
        ? "No entry of it can be trusted."
        : `Entries before #${r.untrustedFrom} verify; treat #${r.untrustedFrom} and everything after it as untrusted.`;
    complain(`audit log of ${info.file}: chain broken at ${which}: ${r.problem}. ${trust}`);
    return 1;
  } finally {
    db.close();
  }
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  console.error(`driftwatch: ${(error as Error).message}`);
  process.exitCode = 1;
}
