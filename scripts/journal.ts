/**
 * npm run journal -- <command> [file]
 *
 *   migrate [file]   create the journal (WAL) or upgrade it to this driftwatch's schema; safe twice
 *   check [file]     exit 0 when the console can read it and SQLite's quick_check finds no damage,
 *                    else print the one-line reason, exit 1
 *   version [file]   print the schema version (PRAGMA user_version) and the version this code knows
 *   prune [file] --keep 30d [--keep-incidents 365d] [--keep-orders 365d] [--keep-rollups 90d]
 *                    [--dry-run] [--vacuum-into COPY] [--by NAME] [--no-bot] [--nice N] [--progress S]
 *                    delete per-cycle reconciliation rows older than the horizon (incident windows
 *                    kept to --keep-incidents), settled orders with their events older than
 *                    --keep-orders, and fold five-minute rollups older than --keep-rollups into
 *                    hourly ones (docs/journal.md "Retention"), in batches the bot never waits on;
 *                    each second horizon takes `forever`; --dry-run prints what would go; a killed
 *                    run resumes when run again; --no-bot for a journal nobody writes meanwhile:
 *                    larger batches, no pauses; --nice: the prune's CPU priority (default 19);
 *                    a progress line on stderr every --progress S seconds (default 10, 0: none);
 *                    SIGINT/SIGTERM stop it after the current batch ("stopped at reconciliation N;
 *                    run the same command again to resume"), exit 130/143 (128 + the signal)
 *
 * The file defaults to DRIFTWATCH_JOURNAL (./data/journal.db). When that default is missing and the
 * demo's journal exists, check and version name the demo's and the command for it (scripts/cli-files.ts).
 */
import { env, EnvError } from "../lib/env";
import { demoFileHint } from "./cli-files";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { corruptError, JournalError, journalFault, latestSchemaVersion, migrateJournal, openJournalReader, openJournalWriter } from "../lib/db/journal-file";
import { NO_BOT_PACE, pageUse, pruneJournal, PruneStoppedError, vacuumInto, type PruneProgress } from "../lib/db/journal-prune";
import { DEFAULT_HORIZONS, parseKeep, parseSecondHorizon } from "../lib/journal/retention";

const usage = `usage: npm run journal -- <migrate|check|version> [file]
       npm run journal -- prune [file] --keep 30d [--keep-incidents 365d] [--keep-orders 365d] [--keep-rollups 90d]
                                [--dry-run] [--vacuum-into COPY] [--by NAME] [--no-bot] [--nice N] [--progress S]`;

/**
 * This copy's own drizzle/, wherever the command runs from: read from the working directory, a
 * run from another checkout's folder (or another worktree's) compared the journal with that
 * copy's migrations and called a journal this copy migrated "newer than this driftwatch knows".
 */
const migrationsDir = path.join(import.meta.dirname, "..", "drizzle");
/**
 * A file named on the command line, from where the command was typed: `npm run` moves to the
 * project's folder first and says where it was in INIT_CWD, so `npm run journal -- check live.db`
 * means the live.db beside the person typing, as it does with `npx tsx scripts/journal.ts`.
 */
const argFile = (file: string) => path.resolve(process.env.INIT_CWD ?? process.cwd(), file);

const PHASES: Record<PruneProgress["phase"], string> = { cycles: "reconciliations", orders: "settled orders", rollups: "hours of five-minute rollups" };
const duration = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
};
/** `reconciliations 12,345 of 40,000 (31 %), 410 a second, about 1 min 7 s left` */
function progressLine(p: PruneProgress): string {
  const n = (v: number) => Math.round(v).toLocaleString("en");
  const pct = p.total > 0 ? ` (${Math.min(100, Math.floor((p.done / p.total) * 100))} %)` : "";
  const left = p.etaMs === null ? "" : `, about ${duration(p.etaMs)} left in this phase`;
  return `${PHASES[p.phase]} ${n(p.done)} of ${n(p.total)}${pct}, ${n(p.rate)} a second${left}`;
}

/** Every horizon alike (each is on a five-minute boundary): `2026-11-30 03:00 UTC`. */
const horizonText = (iso: string | null) => (iso === null ? "" : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`);

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * `--keep -5d` as `--keep=-5d`: parseArgs takes a value starting with a dash for an option of its
 * own and says "ambiguous"; joined, the value reaches its own check ("--keep: not a duration (-5d)"),
 * and `--nice -5` means what it says.
 */
const VALUE_OPTIONS = new Set(["--keep", "--keep-incidents", "--keep-orders", "--keep-rollups", "--nice", "--progress", "--by", "--vacuum-into"]);
const joinDashValues = (argv: string[]) =>
  argv.flatMap((a, i) =>
    VALUE_OPTIONS.has(a) && /^-[^-]/.test(argv[i + 1] ?? "")
      ? [`${a}=${argv[i + 1]}`]
      : i > 0 && VALUE_OPTIONS.has(argv[i - 1]!) && /^-[^-]/.test(a)
        ? []
        : [a],
  );

/**
 * A JournalError about a file named on the command line: its fix, written for the console and the
 * DRIFTWATCH_JOURNAL default, said for that argument (and prune never offers to create a journal).
 */
function forArgument(error: JournalError, command: string): JournalError {
  const f = error.file;
  switch (error.code) {
    case "missing":
      return new JournalError(
        "missing",
        f,
        error.problem,
        command === "prune"
          ? "check the path: there is no journal there to prune"
          : `check the path, or run "npm run journal -- migrate ${f}" to create a new journal there`,
      );
    case "not_a_file":
      return new JournalError("not_a_file", f, error.problem, "give the journal file itself, not a folder");
    case "not_sqlite":
      return new JournalError("not_sqlite", f, `${error.problem}, so not a driftwatch journal`, "check the path: give the bot's journal file");
    default:
      return error;
  }
}

async function prune(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: joinDashValues(argv),
      allowPositionals: true,
      options: {
        keep: { type: "string" },
        "dry-run": { type: "boolean", default: false },
        "vacuum-into": { type: "string" },
        by: { type: "string" },
        "no-bot": { type: "boolean", default: false },
        "keep-incidents": { type: "string", default: DEFAULT_HORIZONS.incidents },
        "keep-orders": { type: "string", default: DEFAULT_HORIZONS.orders },
        "keep-rollups": { type: "string", default: DEFAULT_HORIZONS.rollups },
        nice: { type: "string", default: "19" },
        progress: { type: "string", default: "10" },
      },
    });
  } catch (error) {
    console.error(`driftwatch: ${(error as Error).message}\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1 || values.keep === undefined) {
    console.error(`driftwatch: prune needs --keep (how much per-cycle history to keep, like 30d)\n${usage}`);
    return 2;
  }
  const keep = parseKeep(values.keep);
  if (!keep.ok) {
    console.error(`driftwatch: ${keep.message}`);
    return 2;
  }
  const second: Record<"incidents" | "orders" | "rollups", number | null> = { incidents: null, orders: null, rollups: null };
  for (const kind of ["incidents", "orders", "rollups"] as const) {
    const r = parseSecondHorizon(values[`keep-${kind}`], `--keep-${kind}`, keep.ms);
    if (!r.ok) {
      console.error(`driftwatch: ${r.message}`);
      return 2;
    }
    second[kind] = r.ms;
  }
  const progressS = Number(values.progress);
  if (!(progressS >= 0)) {
    console.error(`driftwatch: --progress ${values.progress} is not a number of seconds (0: no progress lines)`);
    return 2;
  }
  const nice = Number(values.nice);
  if (!Number.isInteger(nice) || nice < -20 || nice > 19) {
    console.error(`driftwatch: --nice ${values.nice} is not a nice value (an integer from -20 to 19)`);
    return 2;
  }
  // A background job: at the lowest CPU priority the bot (on the same cores) never waits for the
  // prune's CPU (docs/performance.md, "Pruning", fourth pass). Raising it needs privileges.
  try {
    os.setPriority(nice);
  } catch (error) {
    console.error(`driftwatch: could not set --nice ${nice} (${(error as Error).message}); pruning at the current priority`);
  }
  const file = positionals[0] === undefined ? env().journalPath : argFile(positionals[0]);
  // Nothing anonymous writes to a journal: the run is recorded with who started it.
  const actor = values.by ?? `cli:${os.userInfo().username}`;
  let opened;
  try {
    opened = openJournalWriter(file, { migrationsDir });
  } catch (error) {
    throw error instanceof JournalError && positionals[0] !== undefined ? forArgument(error, "prune") : error;
  }
  const { db, info } = opened;
  try {
    const before = pageUse(db);
    // --no-bot: nobody writes the journal meanwhile (a copy, an archive), so nobody to make room for.
    const pace = values["no-bot"] ? NO_BOT_PACE : {};
    // Ctrl-C or a service manager's SIGTERM: stop after the batch in hand (each is its own
    // transaction, recorded with the run's cursor), say where, exit 128 + the signal's number. A
    // second signal exits at once; that too leaves the journal consistent, only the line is lost.
    const stop = new AbortController();
    let stoppedBy: NodeJS.Signals | null = null;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stoppedBy !== null) process.exit(128 + os.constants.signals[signal]);
      stoppedBy = signal;
      stop.abort();
      console.error(`driftwatch: ${signal}: stopping after the current batch`);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    if (!values["dry-run"]) {
      console.error(
        `driftwatch: pruning ${info.file}${progressS > 0 ? `, a progress line every ${progressS} s` : ""}; Ctrl-C stops after the current batch, and the same command resumes`,
      );
    }
    let r;
    try {
      r = await pruneJournal({
        db,
        keepMs: keep.ms,
        keepIncidentsMs: second.incidents,
        keepOrdersMs: second.orders,
        keepRollupsMs: second.rollups,
        actor,
        dryRun: values["dry-run"],
        signal: stop.signal,
        progressEveryMs: progressS * 1000,
        onProgress: progressS > 0 ? (p) => console.error(`driftwatch: ${progressLine(p)}`) : undefined,
        ...pace,
      });
    } catch (error) {
      if (!(error instanceof PruneStoppedError) || stoppedBy === null) throw error;
      console.error(`driftwatch: journal ${info.file}: ${error.message}`);
      return 128 + os.constants.signals[stoppedBy];
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
    if (r.running) {
      console.log(
        `journal ${info.file}: another prune is running on it (started ${r.running.startedAt} by ${r.running.actor}, at reconciliation ${r.running.cursor}); ` +
          "what follows is what is left for it to do at this moment, and a prune without --dry-run is refused until it ends",
      );
    }
    const what = r.dryRun ? "would delete" : r.resumed ? "resumed a stopped prune and deleted" : "deleted";
    const n = (v: number) => v.toLocaleString("en");
    const forGood = (h: string | null, text: string) => (h === null ? `${text}: kept for good` : null);
    const windows = `${n(r.incidentWindowsKept)} incident window${r.incidentWindowsKept === 1 ? "" : "s"}`;
    console.log(
      [
        `journal ${info.file}: ${what} ${n(r.cycles)} cycles and ${n(r.positions)} position rows older than ${horizonText(r.horizon)}`,
        `  ${n(r.keptCycles)} older cycles kept: ${windows} ${r.incidentHorizon === null ? "(kept for good)" : "still inside --keep-incidents"}, plus cycles other rows point to`,
        r.incidentHorizon === null
          ? null
          : `  incident windows that ended before ${horizonText(r.incidentHorizon)}: ${n(r.incidentsPruned)}, their cycles ${r.dryRun ? "would go" : "went"} with the others`,
        forGood(r.orderHorizon, "  settled orders") ??
          `  settled orders last updated before ${horizonText(r.orderHorizon)}: ${n(r.orders)} with ${n(r.orderEvents)} events ${r.dryRun ? "would go" : "went"}; ${n(r.keptOrders)} kept (audited, operator events, or in a kept incident)`,
        forGood(r.rollupHorizon, "  five-minute rollups") ??
          `  five-minute rollups before ${horizonText(r.rollupHorizon)}: ${n(r.rollupsFolded)} rows ${r.dryRun ? "would be" : "were"} folded into hourly ones`,
        "  breaker events, book corrections, acknowledgements and the audit log untouched",
      ]
        .filter((line) => line !== null)
        .join("\n"),
    );
    if (!r.dryRun) {
      const after = pageUse(db);
      console.log(
        `  ${r.batches} batches in ${(r.elapsedMs / 1000).toFixed(1)} s, write lock held at most ${r.lockMsMax.toFixed(1)} ms (p99 ${r.lockMsP99.toFixed(1)} ms); ` +
          `${mb(after.freePages * after.pageSize)} of ${mb(after.pages * after.pageSize)} now free for the bot's next writes (was ${mb(before.freePages * before.pageSize)})`,
      );
    }
    if (values["vacuum-into"]) {
      const copy = vacuumInto(db, argFile(values["vacuum-into"]));
      console.log(`  compact copy ${copy.file}: ${mb(copy.bytes)}`);
    }
    return 0;
  } finally {
    db.close();
  }
}

function main(argv: string[]): number {
  const [command, fileArg, ...rest] = argv;
  if (!command || rest.length > 0 || command === "help" || command === "--help") {
    console.error(usage);
    return command === "help" || command === "--help" ? 0 : 2;
  }
  const file = fileArg === undefined ? env().journalPath : argFile(fileArg);
  // Reading a default that is not there while the demo's journal is: say so, not "migrate" (which
  // would create an empty journal beside the demo's).
  const hint = fileArg === undefined && command !== "migrate" ? demoFileHint("journal", file, { script: "journal", args: [command] }) : undefined;
  if (hint) {
    console.error(`driftwatch: ${hint}`);
    return 1;
  }
  switch (command) {
    case "migrate": {
      const r = migrateJournal(file, { migrationsDir });
      const what = r.created ? "created" : r.applied.length > 0 ? "upgraded" : "already up to date";
      console.log(`journal ${r.file}: ${what}, schema version ${r.from} -> ${r.to}${r.applied.length ? ` (applied ${r.applied.join(", ")})` : ""}, WAL`);
      return 0;
    }
    case "check": {
      const { db, info } = openJournalReader(file, { migrationsDir });
      try {
        // Every page, not just the header: a damaged page deep in a table opens fine and fails later.
        const problems = (db.pragma("quick_check(5)") as { quick_check: string }[]).map((r) => r.quick_check).filter((r) => r !== "ok");
        if (problems.length > 0) throw corruptError(info.file, problems.join("; "));
      } catch (error) {
        throw journalFault(info.file, error) ?? error;
      } finally {
        db.close();
      }
      const wal = info.journalMode === "wal" ? "WAL" : `${info.journalMode} mode, not WAL: run migrate to switch it`;
      console.log(`journal ${info.file}: readable, schema version ${info.schemaVersion}, ${wal}`);
      return info.journalMode === "wal" ? 0 : 1;
    }
    case "version": {
      const { db, info } = openJournalReader(file, { migrationsDir });
      db.close();
      console.log(`${info.schemaVersion} (this driftwatch knows ${latestSchemaVersion(migrationsDir)})`);
      return 0;
    }
    default:
      console.error(`unknown command ${JSON.stringify(command)}\n${usage}`);
      return 2;
  }
}

try {
  const argv = process.argv.slice(2);
  try {
    process.exitCode = argv[0] === "prune" ? await prune(argv.slice(1)) : main(argv);
  } catch (error) {
    // check and version on a file given as an argument: the fix is about that argument.
    throw error instanceof JournalError && argv[0] !== "prune" && argv[1] !== undefined ? forArgument(error, argv[0]!) : error;
  }
} catch (error) {
  // One line, no stack: the person reading it needs the file and the fix, not our call graph.
  if (error instanceof JournalError || error instanceof EnvError) console.error(`driftwatch: ${error.message}`);
  else console.error(`driftwatch: ${(error as Error).message}`);
  process.exitCode = 1;
}
