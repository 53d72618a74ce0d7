/**
 * Across languages: each named demo scenario, written once by the TypeScript writer (the demo bots,
 * as the other scenario tests run them) and once by the Python writer (clients/python) replaying the
 * same story against the same exchange answers and the same clock, each into its own journal made
 * from drizzle/. The console's own queries must read both the same: overview, doubtful list (with
 * the ids recomputed), breaker board, incident list, incident stories and timeline. Nothing is
 * normalised: the two journals must be equal row for row.
 *
 * The replay also fails when the Python writer asks the exchange anything the TypeScript writer did
 * not ask, in another order or with other arguments, or returns another outcome (lookup before
 * retry, skip while in flight, cancel and close an unknown position...).
 *
 * On PostgreSQL too: the same replay into an empty database of the file's own server (the module
 * migrates it from drizzle/pg, then writes through its wire-protocol client) must leave every table
 * equal, row for row and value for value, to the TypeScript writer's SQLite journal.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { getBreakerBoard } from "@/lib/queries/breakers";
import { listDoubtfulOrders } from "@/lib/queries/doubtful";
import { getIncidentStory, listIncidents } from "@/lib/queries/incident-story";
import { getIncidentTimeline } from "@/lib/queries/incidents";
import { getOverview } from "@/lib/queries/overview";
import { INCIDENT_KINDS } from "@/lib/url-state/incidents";
import { SCENARIOS, type ScenarioName, type ScenarioResult, type ScenarioRunOptions } from "@/tools/demo/scenarios";
import { clearHaltSpec } from "@/lib/actions/clear-halt";
import { correctBookSpec } from "@/lib/actions/correct-book";
import { haltBotSpec } from "@/lib/actions/halt-bot";
import { getCurrentBookLine } from "@/lib/queries/book-line";
import { act, ana, consoleWriter } from "../helpers/actions";
import { consoleDb } from "../helpers/console-db";
import { migratedJournal, migrationsDir, repoRoot, tempDir } from "../helpers/journal";
import { recordJournalWrite, recordWriterCalls, type WriterTrace } from "../helpers/writer-trace";
import { pgJournalsForFile } from "../helpers/engines";
import { postgresAvailable } from "../helpers/postgres";

const REPLAY = path.join(repoRoot, "test/helpers/replay_writer_trace.py");
const GRACE_MS = 30_000;
const postgres = pgJournalsForFile("python-writer-scenarios");

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

async function typescriptRun(
  name: ScenarioName,
  afterwards?: (trace: WriterTrace) => ScenarioRunOptions["afterwards"],
): Promise<{ result: ScenarioResult; trace: WriterTrace }> {
  const recording = recordWriterCalls();
  try {
    const result = await SCENARIOS[name].run({ file: migratedJournal(`ts-${name}`), migrationsDir, afterwards: afterwards?.(recording.trace) });
    return { result, trace: recording.trace };
  } finally {
    recording.stop();
  }
}

function pythonRun(name: string, trace: WriterTrace, journal?: string): string {
  const dir = tempDir(`py-${name}`);
  const traceFile = path.join(dir, "trace.json");
  fs.writeFileSync(traceFile, JSON.stringify(trace));
  const file = journal ?? path.join(dir, "journal.db");
  const out = execFileSync("python3", [REPLAY, traceFile, file, migrationsDir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  expect(JSON.parse(out)).toEqual({ replayed: trace.calls.length });
  return file;
}

/** The same replay into an empty PostgreSQL database: its tables must equal the TypeScript writer's SQLite ones. */
async function expectPostgresReplayEqual(name: string, trace: WriterTrace, sqliteFile: string): Promise<void> {
  if (!postgresAvailable) return; // test/helpers/postgres.ts said so loudly; CI never gets here
  const url = pythonRun(`${name}-pg`, trace, await postgres.empty());
  // Text keys sort by bytes on both (the test server's collation is C).
  const written = await postgres.rows(url, TABLES);
  expect(written["SELECT * FROM orders ORDER BY client_order_id"]!.length).toBeGreaterThan(0);
  expect(written).toEqual(tables(sqliteFile));
}

/** Everything a writer writes, table by table, in key order. */
const TABLES = [
  "SELECT * FROM bots ORDER BY bot_id",
  "SELECT * FROM orders ORDER BY client_order_id",
  "SELECT * FROM order_events ORDER BY id",
  "SELECT * FROM reconciliations ORDER BY id",
  "SELECT * FROM reconciliation_positions ORDER BY reconciliation_id, symbol",
  "SELECT * FROM breakers ORDER BY bot_id",
  "SELECT * FROM breaker_events ORDER BY id",
  "SELECT * FROM latest_positions ORDER BY bot_id, symbol",
  "SELECT * FROM position_rollups ORDER BY 1, 2, 3",
  "SELECT * FROM cycle_rollups ORDER BY 1, 2",
];

function tables(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries(TABLES.map((sql) => [sql, db.prepare(sql).all()]));
  } finally {
    db.close();
  }
}

/** What the console shows of a journal at one instant, through its own queries. */
async function consoleView(file: string, now: Date, from: string) {
  const { db, close } = consoleDb(file);
  cleanup.push(close);
  const incidents = listIncidents({ db, bot: null, now });
  return {
    overview: await getOverview({ db, now, heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000, doubtfulGraceMs: GRACE_MS }),
    doubtful: await listDoubtfulOrders({ db, now, graceMs: GRACE_MS }),
    breakers: await getBreakerBoard({ db, now, heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000 }),
    incidents,
    stories: incidents.items.map((i) => getIncidentStory({ db, id: i.id, now })),
    timeline: getIncidentTimeline({
      db,
      window: { from, to: new Date(now.getTime() + 60_000).toISOString() },
      filters: { bot: null, kinds: [...INCIDENT_KINDS] },
    }),
  };
}

describe.each([
  ["double-buy-avoided", (v: Awaited<ReturnType<typeof consoleView>>) => expect(v.breakers.bots.every((b) => b.breaker?.halted === false)).toBe(true)],
  [
    "lost-reply-unknown",
    (v: Awaited<ReturnType<typeof consoleView>>) => {
      expect(v.doubtful.orders.map((o) => [o.botId, o.state, o.idCheck.kind])).toEqual([["alpha", "unknown", "ok"]]);
      expect(v.incidents.items).toHaveLength(1);
    },
  ],
  [
    "unknown-position",
    (v: Awaited<ReturnType<typeof consoleView>>) => {
      expect(v.incidents.items.map((i) => i.botId)).toEqual(["alpha"]);
      expect(v.stories[0]?.story.cause.reason).toBe("unknown position SOLUSDT -12.5");
    },
  ],
  ["size-drift", (v: Awaited<ReturnType<typeof consoleView>>) => expect(v.stories[0]?.story.cause.reason).toBe("size drift AAPL: book +100 vs exchange +60")],
  ["in-flight", (v: Awaited<ReturnType<typeof consoleView>>) => expect(v.timeline.events.some((e) => e.kind === "skipped")).toBe(true)],
] as const)("scenario %s written by the Python writer", (name, story) => {
  it("reads on the console exactly as the TypeScript writer's journal, row for row", async () => {
    const { result, trace } = await typescriptRun(name);
    expect(trace.calls.some((c) => c.method === "sendOnce")).toBe(true);
    const pyFile = pythonRun(name, trace);

    expect(tables(pyFile)).toEqual(tables(result.file));
    await expectPostgresReplayEqual(name, trace, result.file);
    const now = new Date(result.to);
    const ts = await consoleView(result.file, now, result.from);
    const py = await consoleView(pyFile, now, result.from);
    story(py);
    expect(py).toEqual(ts);
    // The doubtful list recomputes every id from its row: the Python ids must pass as the bot's own.
    expect(py.doubtful.orders.every((o) => o.idCheck.kind === "ok")).toBe(true);
  });
});

describe("scenario size-drift, then the operator's book correction, clear and halt by hand, written by the Python writer", () => {
  it("counts the correction in its book, stops at the hand-made halt after the clear, and reads as the TypeScript writer's", async () => {
    const deps = { heartbeatStaleMs: 60_000, doubtfulGraceMs: GRACE_MS, twoPersonClear: false, twoPersonWindowMs: 600_000 };
    const { result, trace } = await typescriptRun("size-drift", (trace) => async ({ world, cycle }) => {
      const db = consoleWriter(world.file);
      cleanup.push(() => db.close());
      const line = getCurrentBookLine({ db, botId: "beta", symbol: "AAPL" })!;
      const input = {
        botId: "beta",
        symbol: "AAPL",
        kind: "adopt_exchange",
        reconciliationId: String(line.reconciliationId),
        ours: String(line.ours),
        theirs: String(line.theirs),
        note: "40 closed by hand",
      };
      expect(await recordJournalWrite(trace, db, () => act(db, correctBookSpec({ ackTtlMs: 600_000 }), ana, input, world.now()))).toMatchObject({ ok: true });
      await cycle();
      const version = () => String(db.prepare(`SELECT version FROM breakers WHERE bot_id = 'beta'`).pluck().get());
      const clear = { botId: "beta", breakerVersion: version(), reason: "book corrected", confirmBotId: "beta" };
      expect(await recordJournalWrite(trace, db, () => act(db, clearHaltSpec(deps), ana, clear, world.now()))).toEqual({ ok: true, data: { cleared: true } });
      const halt = { botId: "beta", reason: "venue maintenance", breakerVersion: version() };
      expect(await recordJournalWrite(trace, db, () => act(db, haltBotSpec(), ana, halt, world.now()))).toMatchObject({ ok: true });
      // The strategy still wants NVDA: on its next bar the entry is refused by the hand-made halt.
      await cycle(7);
    });
    const refused = trace.calls.filter((c) => c.method === "sendOnce" && (c.result as { threw?: string }).threw === "BreakerHaltedError");
    expect(refused.length).toBeGreaterThan(0);
    const pyFile = pythonRun("size-drift-operator", trace);

    expect(tables(pyFile)).toEqual(tables(result.file));
    await expectPostgresReplayEqual("size-drift-operator", trace, result.file);
    const now = new Date(result.to);
    const py = await consoleView(pyFile, now, result.from);
    expect(py.incidents.items.map((i) => [i.botId, i.status])).toEqual([
      ["beta", "open"],
      ["beta", "cleared"],
    ]);
    expect(py).toEqual(await consoleView(result.file, now, result.from));
  });
});
