/**
 * How the command-line tools find their files when none is named: the defaults (./data/journal.db,
 * ./data/accounts.db) are the console's, but a newcomer's first files are the demo's
 * (./data/demo.db, ./data/demo-accounts/accounts.db, under DRIFTWATCH_DEMO_DIR if set). When a
 * default file is missing and the demo's exists, the tool says which to use and the exact command,
 * rather than advising `migrate` or `add`, which would create an empty file beside the real one.
 */
import fs from "node:fs";
import path from "node:path";

type Kind = "journal" | "accounts";

const VARIABLE: Record<Kind, string> = { journal: "DRIFTWATCH_JOURNAL", accounts: "DRIFTWATCH_ACCOUNTS_DB" };

/** A path as a person would type it from here: ./data/demo.db rather than an absolute path. */
export function shown(file: string): string {
  const rel = path.relative(process.cwd(), file);
  if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return file;
  return `.${path.sep}${rel}`;
}

function demoFile(kind: Kind): string {
  const dir = path.resolve(process.env.DRIFTWATCH_DEMO_DIR?.trim() || "data");
  return kind === "journal" ? path.join(dir, "demo.db") : path.join(dir, "demo-accounts", "accounts.db");
}

/** True when the file comes from the default, not from the variable or an argument. */
const isDefault = (kind: Kind) => !process.env[VARIABLE[kind]]?.trim();

/** A word a shell reads back as itself. */
export const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/**
 * When `file` is the default for `kind`, is missing, and the demo's file exists: the one line that
 * names both and the command to run on the demo's (also naming the demo's other file when the
 * command reads both and that one is a missing default too). Otherwise undefined.
 */
export function demoFileHint(
  kind: Kind,
  file: string,
  command: { script: string; args: string[]; alsoReads?: { kind: Kind; file: string } },
): string | undefined {
  if (!isDefault(kind) || fs.existsSync(file)) return undefined;
  const demo = demoFile(kind);
  if (!fs.existsSync(demo)) return undefined;
  const vars = [`${VARIABLE[kind]}=${quote(shown(demo))}`];
  const other = command.alsoReads;
  if (other && isDefault(other.kind) && !fs.existsSync(other.file) && fs.existsSync(demoFile(other.kind)))
    vars.push(`${VARIABLE[other.kind]}=${quote(shown(demoFile(other.kind)))}`);
  const what = kind === "journal" ? "no journal" : "no accounts file";
  return `${what} at ${shown(file)}; the demo's is ${shown(demo)}: ${vars.join(" ")} npm run ${command.script} -- ${command.args.map(quote).join(" ")}`;
}
