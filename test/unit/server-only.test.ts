/**
 * The house style (../shared/STYLE.md): every module that touches a secret, writes, or talks to the exchange starts with
 * `import "server-only"`, so a client component that imports it by mistake fails the build instead
 * of shipping it to browsers. The exceptions are modules the CLIs and tools import (run with tsx,
 * outside Next, where that import throws): each says so in its opening lines, and each must really
 * be imported by one. The lists below are the rule's one written form; the checks keep them true.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

/** Every lib module that holds or reads a secret, writes a database, or talks to the venue gateway: what it does. */
const SENSITIVE: Record<string, string> = {
  "lib/actions/acknowledge-drift.ts": "writes the journal",
  "lib/actions/correct-book.ts": "writes the journal",
  "lib/actions/clear-halt.ts": "writes the journal",
  "lib/actions/halt-bot.ts": "writes the journal",
  "lib/actions/pg-actions.ts": "writes a PostgreSQL journal",
  "lib/actions/pg-guard.ts": "writes a PostgreSQL journal and its audit log",
  "lib/actions/guard.ts": "writes the journal and the audit log",
  "lib/actions/resolve-order.ts": "writes the journal",
  "lib/actions/server.ts": "the server actions: write connection, audit key, venue gateway",
  "lib/alerting/alertmanager.ts": "talks to Alertmanager",
  "lib/alerting/silence-loop.ts": "reads the settings; expires silences in Alertmanager",
  "lib/alerting/silences.ts": "writes the accounts file's silences; makes and expires silences in Alertmanager",
  "lib/audit/chain.ts": "hashes with the audit key",
  "lib/audit/console-head.ts": "publishes the audit head",
  "lib/audit/key.ts": "reads and generates the audit key",
  "lib/audit/log.ts": "appends to the audit log",
  "lib/audit/pg-log.ts": "appends to the audit log on PostgreSQL",
  "lib/auth/accounts.ts": "writes accounts and password hashes",
  "lib/auth/actions.ts": "sign-in and sign-out",
  "lib/auth/context.ts": "the session secret and the accounts file",
  "lib/auth/device.ts": "signs device cookies with the session secret",
  "lib/auth/password.ts": "hashes and verifies passwords",
  "lib/auth/pg-rate-limit.ts": "writes the shared sign-in failures",
  "lib/auth/resolve.ts": "verifies passwords and session tokens",
  "lib/auth/secret.ts": "reads and generates the session secret",
  "lib/auth/secret-strength.ts": "judges every secret",
  "lib/auth/session.ts": "verifies sessions",
  "lib/auth/token.ts": "signs session tokens",
  "lib/bot/journal-writer.ts": "writes the journal (the bots' library)",
  "lib/bot/pg-journal-writer.ts": "writes a PostgreSQL journal (the bots' library)",
  "lib/db/accounts-file.ts": "opens the accounts file for writing",
  "lib/db/console.ts": "opens the journal's write connection",
  "lib/db/journal-file.ts": "opens, creates and migrates journals",
  "lib/db/journal-prune.ts": "deletes a journal's old per-cycle rows (the prune command)",
  "lib/db/startup-check.ts": "reads the settings and opens the journal",
  "lib/env.ts": "reads process.env, secrets included",
  "lib/exchange/ccxt-adapter.ts": "signs requests to a real exchange with its API keys",
  "lib/exchange/venue-gateway.ts": "talks to the venue gateway with its token",
  "lib/http/action-ids.ts": "reads the build's server-action ids from disk",
  "lib/http/allowed-host.ts": "reads the settings",
  "lib/http/metrics.ts": "checks the metrics token",
  "lib/queries/read.ts": "reads the settings",
};

/** Of those, the ones a CLI or tool imports, where "server-only" would throw. */
const CLI_SHARED = [
  "lib/audit/chain.ts",
  "lib/audit/key.ts",
  "lib/audit/log.ts",
  "lib/audit/pg-log.ts",
  "lib/auth/accounts.ts",
  "lib/auth/password.ts",
  "lib/auth/secret-strength.ts",
  "lib/auth/token.ts",
  "lib/bot/journal-writer.ts",
  "lib/bot/pg-journal-writer.ts",
  "lib/db/accounts-file.ts",
  "lib/db/journal-file.ts",
  "lib/db/journal-prune.ts",
  "lib/env.ts",
  "lib/exchange/ccxt-adapter.ts",
  "lib/exchange/venue-gateway.ts",
];

/** Modules that match a sign below yet hold no secret and write nothing: why. */
const NOT_SENSITIVE: Record<string, string> = {
  "lib/query-options/fetch-api.ts": "client-side polling of the console's own JSON routes",
  "lib/live/stream-client.ts": "the browser's stream of the console's own GET /api/live",
};

/** What marks a module as sensitive, so a new one cannot be left off SENSITIVE. */
const SIGNS: [string, RegExp][] = [
  ["reads process.env", /process\.env/],
  ["reads the settings (secrets included)", /\benv\(\)/],
  ["opens a database for writing", /getWriteConnection\(|openJournalWriter\(|openAccountsDb\(|migrateJournal\(|BEGIN IMMEDIATE/],
  ["writes rows", /\bINSERT INTO\b|\bUPDATE [a-z_]+ SET\b|\bDELETE FROM\b/],
  ["holds a key or secret", /consoleAuditKey\(|sessionSecret|createHmac/],
  ["talks over the network", /VenueGatewayClient|\bfetch\(|from "ccxt"/],
];

const rel = (file: string) => path.relative(root, file).split(path.sep).join("/");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");
const sourcesUnder = (dir: string) =>
  fs
    .readdirSync(path.join(root, dir), { recursive: true })
    .map((f) => `${dir}/${String(f).split(path.sep).join("/")}`)
    .filter((f) => /\.(ts|tsx|mts|mjs)$/.test(f) && !f.endsWith(".d.ts"));

/** The first statement, past comments and a "use server" directive. */
function firstStatement(text: string): string {
  const lines = text.split("\n");
  let inBlock = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (inBlock) {
      if (line.includes("*/")) inBlock = false;
      continue;
    }
    if (line === "" || line.startsWith("//")) continue;
    if (line.startsWith("/*")) {
      inBlock = !line.includes("*/");
      continue;
    }
    if (line === '"use server";') continue;
    return line;
  }
  return "";
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s+["']([^"']+)["']/g;

function resolveImport(from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = path.join(root, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(path.join(root, from)), spec);
  else return null;
  for (const ext of ["", ".ts", ".tsx", ".mts", ".mjs", ".js", "/index.ts"]) {
    const file = base + ext;
    if (fs.existsSync(file) && fs.statSync(file).isFile()) return rel(file);
  }
  return null;
}

/** Every project file the entries load at run time (type-only imports do not load anything). */
function loadedFrom(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const m of read(file).matchAll(IMPORT)) {
      if (m[2]) continue;
      const spec = m[3] ?? m[4] ?? m[5];
      const target = spec ? resolveImport(file, spec) : null;
      if (target) todo.push(target);
    }
  }
  return seen;
}

// What tsx runs (the CLIs, the demo, soak and bench) and what Playwright's own process loads.
const cliLoads = loadedFrom([...sourcesUnder("scripts"), ...sourcesUnder("tools")]);
const outsideNextLoads = loadedFrom([...sourcesUnder("scripts"), ...sourcesUnder("tools"), ...sourcesUnder("test/e2e"), "playwright.config.ts"]);

describe('"server-only" on every module that holds a secret, writes, or talks to the venue', () => {
  const libModules = sourcesUnder("lib");

  it("the lists name real modules", () => {
    for (const file of [...Object.keys(SENSITIVE), ...CLI_SHARED, ...Object.keys(NOT_SENSITIVE)]) expect(libModules, file).toContain(file);
    for (const file of CLI_SHARED) expect(Object.keys(SENSITIVE), `${file} is an exception to a rule it is not under`).toContain(file);
  });

  it("every sensitive module the CLIs do not import starts with it", () => {
    const missing = Object.keys(SENSITIVE)
      .filter((file) => !CLI_SHARED.includes(file))
      .filter((file) => firstStatement(read(file)) !== 'import "server-only";')
      .map((file) => `${file} (${SENSITIVE[file]})`);
    expect(missing, 'add import "server-only"; as its first line (after "use server" in an actions file)').toEqual([]);
  });

  it("each CLI-shared exception is really loaded by a CLI or tool, and says why in its opening lines", () => {
    for (const file of CLI_SHARED) {
      expect(cliLoads.has(file), `${file} is no longer loaded by scripts/ or tools/: give it import "server-only" and take it off CLI_SHARED`).toBe(true);
      const opening = read(file).split("\n").slice(0, 8).join("\n");
      expect(opening, `${file}: say in its first lines why it has no "server-only"`).toMatch(/no "server-only"/i);
    }
  });

  it("nothing loaded outside Next (tsx, Playwright) imports it, since it would throw there", () => {
    const throwing = [...outsideNextLoads].filter((file) => /(^|\n)\s*import\s+["']server-only["']/.test(read(file)));
    expect(throwing, "these are loaded by a CLI, a tool or Playwright: remove the import and add the module to CLI_SHARED").toEqual([]);
  });

  it("a module that shows a sign of holding a secret, writing or calling out is on the list", () => {
    const unlisted = libModules.flatMap((file) => {
      if (file in SENSITIVE || file in NOT_SENSITIVE) return [];
      const text = read(file);
      const signs = SIGNS.filter(([, re]) => re.test(text)).map(([why]) => why);
      return signs.length > 0 ? [`${file}: ${signs.join(", ")}`] : [];
    });
    expect(unlisted, "add each to SENSITIVE (and give it server-only) or to NOT_SENSITIVE with the reason").toEqual([]);
  });
});
