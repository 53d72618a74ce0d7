/**
 * Every operator action on a PostgreSQL journal, against a real server: the same rows written into
 * a SQLite journal and a PostgreSQL one, the same posts sent to runGuarded and runGuardedPg, and
 * each step must answer the same (applied, or refused with the same code, message and reasons), write
 * the same rows and the same audit entries (the chains are equal hash for hash, and verify). Then
 * the two-processes-clear-at-once race on PostgreSQL, and bad input changing nothing.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import type Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acknowledgeDriftSpec, acknowledgeEndedDriftSpec } from "@/lib/actions/acknowledge-drift";
import { approveClearSpec, clearHaltSpec, type ClearDeps } from "@/lib/actions/clear-halt";
import { correctBookSpec } from "@/lib/actions/correct-book";
import { runGuarded, type ActingUser, type ActionSpec } from "@/lib/actions/guard";
import { haltBotSpec } from "@/lib/actions/halt-bot";
import {
  acknowledgeDriftPgSpec,
  acknowledgeEndedDriftPgSpec,
  approveClearPgSpec,
  clearHaltPgSpec,
  correctBookPgSpec,
  haltBotPgSpec,
  resolveByLookupPgSpec,
  resolveManuallyPgSpec,
} from "@/lib/actions/pg-actions";
import { pgTx, runGuardedPg, type PgActionSpec } from "@/lib/actions/pg-guard";
import { queryOf, type JournalQuery } from "@/lib/db/query";
import { getBotClearView } from "@/lib/queries/bot-clear";
import { resolveByLookupSpec, resolveManuallySpec } from "@/lib/actions/resolve-order";
import type { ActionResult } from "@/lib/actions/result";
import { verifyAuditLog } from "@/lib/audit/log";
import { verifyAuditLogPg } from "@/lib/audit/pg-log";
import type { OrderLookup } from "@/lib/exchange/venue-gateway";
import { LimitedLog } from "@/lib/http/rate-window";
import { consoleWriter } from "../helpers/actions";
import { migratedJournal, repoRoot } from "../helpers/journal";
import { postgresAvailable, startPostgres, type PostgresServer } from "../helpers/postgres";
import { freshPgJournal, pgAuditRows, pgExec, pgTables, quietPool, seedJournal, sqliteExec, sqliteTables, type SeedCycle } from "../helpers/pg-journal";
import type { z } from "zod";

const KEY = "pg-actions test audit key, 32 characters or more";
const T0 = "2026-12-01T10:00:00.000Z";
const at = (s: number) => new Date(Date.parse(T0) + s * 1000).toISOString();
const NOW = new Date(at(120));
const GRACE = 30_000;
const ana: ActingUser = { name: "ana", role: "operator" };
const ben: ActingUser = { name: "ben", role: "operator" };
const quietLog = new LimitedLog({ linesPerWindow: Number.MAX_SAFE_INTEGER, windowMs: 60_000, maxLineChars: 400, write: () => undefined });

/**
 * bot-a: halted by a drift on AAPL at T0, since repaired; MSFT drifted for one cycle after the trip
 * (an ended drift to acknowledge), and its last cycle is clean. bot-b: running. bot-c: running,
 * AAPL drifting now (to acknowledge), TSLA drifting now (to correct). bot-d: an order whose reply
 * was lost (doubtful), and one more to settle by asking the exchange.
 */
const cycles: SeedCycle[] = [
  { id: 1, botId: "bot-a", at: at(-10), outcome: "drift", lines: [{ symbol: "AAPL", ours: 500, theirs: 200, qtyStep: 1, markPrice: 190 }] },
  {
    id: 2,
    botId: "bot-a",
    at: at(20),
    outcome: "drift",
    lines: [
      { symbol: "AAPL", ours: 500, theirs: 500, qtyStep: 1 },
      { symbol: "MSFT", ours: 10, theirs: 12, qtyStep: 1 },
    ],
  },
  { id: 3, botId: "bot-a", at: at(50), outcome: "clean", lines: [{ symbol: "AAPL", ours: 500, theirs: 500, qtyStep: 1 }] },
  {
    id: 4,
    botId: "bot-c",
    at: at(100),
    outcome: "drift",
    lines: [
      { symbol: "AAPL", ours: 100, theirs: 40, qtyStep: 1, markPrice: 190 },
      { symbol: "TSLA", ours: 0, theirs: 7, qtyStep: 1, markPrice: 250 },
    ],
  },
  { id: 5, botId: "bot-d", at: at(100), outcome: "clean", lines: [{ symbol: "AAPL", ours: 0, theirs: 0, qtyStep: 1, markPrice: 190 }] },
];
const world = {
  bots: [
    { botId: "bot-a", heartbeatAt: at(115), breaker: { halted: true, reason: "drift on AAPL", changedAt: T0, changedBy: "bot", version: 2 } },
    { botId: "bot-b", heartbeatAt: at(115), breaker: { halted: false, reason: null, changedAt: at(-100), changedBy: "bot", version: 1 } },
    { botId: "bot-c", heartbeatAt: at(115), breaker: { halted: false, reason: null, changedAt: at(-100), changedBy: "bot", version: 1 } },
    { botId: "bot-d", heartbeatAt: at(115), breaker: { halted: false, reason: null, changedAt: at(-100), changedBy: "bot", version: 1 } },
  ],
  cycles,
  orders: [
    { clientOrderId: "d-1", botId: "bot-d", symbol: "AAPL", qty: 10, state: "unknown", createdAt: at(30), updatedAt: at(40), version: 3 },
    { clientOrderId: "d-2", botId: "bot-d", symbol: "AAPL", qty: 5, state: "unknown", createdAt: at(31), updatedAt: at(41), version: 2 },
  ],
};

/** A recorded venue answer for d-2: filled at 190.5. */
const lookup: OrderLookup = {
  lookup: async (q) =>
    q.clientOrderId === "d-2"
      ? {
          kind: "found",
          order: { clientOrderId: "d-2", exchangeOrderId: "X-77", symbol: "AAPL", side: "buy", qty: 5, status: "filled", filledQty: 5, avgPrice: 190.5 },
        }
      : { kind: "absent" },
};

const clearDeps: ClearDeps = { heartbeatStaleMs: 60_000, doubtfulGraceMs: GRACE, twoPersonClear: false, twoPersonWindowMs: 600_000 };
const twoPerson: ClearDeps = { ...clearDeps, twoPersonClear: true };

interface Step {
  name: string;
  user: ActingUser;
  sqlite: () => ActionSpec<z.ZodType, unknown, unknown>;
  pg: () => PgActionSpec<z.ZodType, unknown, unknown>;
  form: Record<string, unknown>;
  expect: "applied" | "invalid" | "refused" | "conflict";
}
const step = <S extends z.ZodType, P, T>(
  name: string,
  user: ActingUser,
  sqlite: () => ActionSpec<S, P, T>,
  pgSpec: () => PgActionSpec<S, P, T>,
  form: Record<string, unknown>,
  expected: Step["expect"],
): Step => ({ name, user, sqlite: sqlite as never, pg: pgSpec as never, form, expect: expected });

const reader = (db: Database.Database) => () => ({ $client: db }) as never;

describe.skipIf(!postgresAvailable)("operator actions on a PostgreSQL journal", () => {
  let server: PostgresServer;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    server = await startPostgres({ label: "pg-actions" });
    console.log(`PostgreSQL initdb + start: ${server.startMs.toFixed(0)} ms`);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end()));
    await server?.stop();
  });

  async function twinJournals() {
    const file = migratedJournal("pg-twin");
    const db = consoleWriter(file);
    await seedJournal(sqliteExec(db), world);
    const { pool, url } = await freshPgJournal(server, "twin");
    pools.push(pool);
    await seedJournal(pgExec(pool), world);
    return { db, pool, url };
  }

  it("each action applies and refuses on PostgreSQL exactly as on SQLite, with the same audit entries", async () => {
    const { db, pool } = await twinJournals();
    const steps: Step[] = [
      step("halt a running bot", ana, haltBotSpec, haltBotPgSpec, { botId: "bot-b", reason: "venue maintenance", breakerVersion: "1" }, "applied"),
      step("halt it again", ben, haltBotSpec, haltBotPgSpec, { botId: "bot-b", reason: "venue maintenance", breakerVersion: "1" }, "refused"),
      step("halt a bot typed in the wrong case", ana, haltBotSpec, haltBotPgSpec, { botId: "BOT-C", reason: "typo check", breakerVersion: "1" }, "refused"),
      step("halt with a stale breaker", ana, haltBotSpec, haltBotPgSpec, { botId: "bot-c", reason: "stale look", breakerVersion: "7" }, "conflict"),
      step(
        "clear while an ended drift is not acknowledged",
        ana,
        () => clearHaltSpec(clearDeps),
        () => clearHaltPgSpec(clearDeps),
        { botId: "bot-a", breakerVersion: "2", reason: "book repaired by hand", confirmBotId: "bot-a" },
        "refused",
      ),
      step(
        "acknowledge the ended drift on a stale cycle",
        ana,
        () => acknowledgeEndedDriftSpec({ ackTtlMs: 3_600_000 }),
        () => acknowledgeEndedDriftPgSpec({ ackTtlMs: 3_600_000 }),
        { botId: "bot-a", symbol: "MSFT", reconciliationId: "1", note: "checked MSFT on the venue" },
        "conflict",
      ),
      step(
        "acknowledge the ended drift",
        ana,
        () => acknowledgeEndedDriftSpec({ ackTtlMs: 3_600_000 }),
        () => acknowledgeEndedDriftPgSpec({ ackTtlMs: 3_600_000 }),
        { botId: "bot-a", symbol: "MSFT", reconciliationId: "2", note: "checked MSFT on the venue" },
        "applied",
      ),
      step(
        "clear with a stale breaker version",
        ana,
        () => clearHaltSpec(clearDeps),
        () => clearHaltPgSpec(clearDeps),
        { botId: "bot-a", breakerVersion: "1", reason: "book repaired by hand", confirmBotId: "bot-a" },
        "conflict",
      ),
      step(
        "clear with a mistyped confirmation",
        ana,
        () => clearHaltSpec(clearDeps),
        () => clearHaltPgSpec(clearDeps),
        { botId: "bot-a", breakerVersion: "2", reason: "book repaired by hand", confirmBotId: "bot-b" },
        "invalid",
      ),
      step(
        "request a clear (two-person rule)",
        ana,
        () => clearHaltSpec(twoPerson),
        () => clearHaltPgSpec(twoPerson),
        { botId: "bot-a", breakerVersion: "2", reason: "book repaired by hand", confirmBotId: "bot-a" },
        "applied",
      ),
      step(
        "request it twice",
        ben,
        () => clearHaltSpec(twoPerson),
        () => clearHaltPgSpec(twoPerson),
        { botId: "bot-a", breakerVersion: "2", reason: "book repaired by hand", confirmBotId: "bot-a" },
        "conflict",
      ),
      step(
        "approve one's own request",
        ana,
        () => approveClearSpec(twoPerson),
        () => approveClearPgSpec(twoPerson),
        { requestId: "1", botId: "bot-a", breakerVersion: "2" },
        "refused",
      ),
      step(
        "a second operator approves",
        ben,
        () => approveClearSpec(twoPerson),
        () => approveClearPgSpec(twoPerson),
        { requestId: "1", botId: "bot-a", breakerVersion: "2" },
        "applied",
      ),
      step(
        "approve it again",
        ben,
        () => approveClearSpec(twoPerson),
        () => approveClearPgSpec(twoPerson),
        { requestId: "1", botId: "bot-a", breakerVersion: "2" },
        "conflict",
      ),
      step(
        "acknowledge a drift whose sizes changed",
        ana,
        () => acknowledgeDriftSpec({ ackTtlMs: 3_600_000 }),
        () => acknowledgeDriftPgSpec({ ackTtlMs: 3_600_000 }),
        { botId: "bot-c", symbol: "AAPL", drift: "size_drift", ours: "100", theirs: "50", driftSince: at(100), note: "looked at the venue" },
        "conflict",
      ),
      step(
        "acknowledge a drift",
        ana,
        () => acknowledgeDriftSpec({ ackTtlMs: 3_600_000 }),
        () => acknowledgeDriftPgSpec({ ackTtlMs: 3_600_000 }),
        { botId: "bot-c", symbol: "AAPL", drift: "size_drift", ours: "100", theirs: "40", driftSince: at(100), note: "looked at the venue" },
        "applied",
      ),
      step(
        "correct a book flat on the bot's side by flattening",
        ana,
        () => correctBookSpec({ ackTtlMs: 3_600_000 }),
        () => correctBookPgSpec({ ackTtlMs: 3_600_000 }),
        { botId: "bot-c", symbol: "TSLA", kind: "flattened_on_venue", reconciliationId: "4", ours: "0", theirs: "7", note: "venue shows 7 TSLA" },
        "refused",
      ),
      step(
        "correct a book to the exchange's size",
        ana,
        () => correctBookSpec({ ackTtlMs: 3_600_000 }),
        () => correctBookPgSpec({ ackTtlMs: 3_600_000 }),
        { botId: "bot-c", symbol: "TSLA", kind: "adopt_exchange", reconciliationId: "4", ours: "0", theirs: "7", note: "venue shows 7 TSLA" },
        "applied",
      ),
      step(
        "correct it twice before the bot counted it",
        ben,
        () => correctBookSpec({ ackTtlMs: 3_600_000 }),
        () => correctBookPgSpec({ ackTtlMs: 3_600_000 }),
        { botId: "bot-c", symbol: "TSLA", kind: "adopt_exchange", reconciliationId: "4", ours: "0", theirs: "7", note: "venue shows 7 TSLA" },
        "conflict",
      ),
      step(
        "resolve an order by hand on a stale version",
        ana,
        () => resolveManuallySpec({ graceMs: GRACE }),
        () => resolveManuallyPgSpec({ graceMs: GRACE }),
        { clientOrderId: "d-1", version: "2", status: "filled", filledQty: "10", avgPrice: "191", note: "venue fills page", priceConfirmed: "" },
        "conflict",
      ),
      step(
        "resolve an order by hand at ten times the mark",
        ana,
        () => resolveManuallySpec({ graceMs: GRACE }),
        () => resolveManuallyPgSpec({ graceMs: GRACE }),
        { clientOrderId: "d-1", version: "3", status: "filled", filledQty: "10", avgPrice: "1910", note: "venue fills page", priceConfirmed: "" },
        "refused",
      ),
      step(
        "resolve an order by hand",
        ana,
        () => resolveManuallySpec({ graceMs: GRACE }),
        () => resolveManuallyPgSpec({ graceMs: GRACE }),
        {
          clientOrderId: "d-1",
          version: "3",
          seenState: "unknown",
          seenFilledQty: "0",
          status: "filled",
          filledQty: "10",
          avgPrice: "191",
          note: "venue fills page",
        },
        "applied",
      ),
      step(
        "resolve it again",
        ben,
        () => resolveManuallySpec({ graceMs: GRACE }),
        () => resolveManuallyPgSpec({ graceMs: GRACE }),
        { clientOrderId: "d-1", version: "4", status: "canceled", note: "venue fills page" },
        "refused",
      ),
      step(
        "ask the exchange about an order the journal does not have",
        ana,
        () => resolveByLookupSpec({ lookup, graceMs: GRACE, reader: reader(db) }),
        () => resolveByLookupPgSpec({ lookup, graceMs: GRACE, pool }),
        { clientOrderId: "d-9", version: "1" },
        "refused",
      ),
      step(
        "settle an order by asking the exchange",
        ana,
        () => resolveByLookupSpec({ lookup, graceMs: GRACE, reader: reader(db) }),
        () => resolveByLookupPgSpec({ lookup, graceMs: GRACE, pool }),
        { clientOrderId: "d-2", version: "2" },
        "applied",
      ),
    ];
    const codes = { sqlite: [] as string[], pg: [] as string[] };
    const pageClient = await pool.connect();
    const pgQ = pgTx(pageClient).q;
    const botPages = async (q: JournalQuery) => {
      const pages = [];
      for (const bot of world.bots) {
        for (const twoPersonClear of [false, true]) {
          const view = await getBotClearView({
            db: q,
            botId: bot.botId,
            now: NOW,
            heartbeatStaleMs: 60_000,
            reconciliationStaleMs: 60_000,
            doubtfulGraceMs: GRACE,
            twoPersonClear,
          });
          expect(view).not.toBeNull();
          pages.push(view);
        }
      }
      return pages;
    };
    expect(await botPages(pgQ)).toEqual(await botPages(queryOf(db)));
    for (const s of steps) {
      const env = { user: s.user, now: () => NOW, client: "192.0.2.7", refusalLog: quietLog, auditKey: KEY };
      const onSqlite = await runGuarded(s.sqlite(), { ...env, db }, s.form);
      const onPg = await runGuardedPg(s.pg(), { ...env, pool }, s.form);
      expect(onPg, s.name).toEqual(onSqlite);
      const outcome = (r: ActionResult<unknown>) => (r.ok ? "applied" : r.code);
      codes.sqlite.push(`${s.name}: ${outcome(onSqlite)}`);
      codes.pg.push(`${s.name}: ${outcome(onPg)}`);
      expect(outcome(onPg), `${s.name}: ${JSON.stringify(onPg)}`).toBe(s.expect);
      // What each bot's page shows after it (checklist, drifts acknowledged or not, clear requests, corrections): the same on both.
      expect(await botPages(pgQ), s.name).toEqual(await botPages(queryOf(db)));
    }
    pageClient.release();
    expect(codes.pg).toEqual(codes.sqlite);
    // The same rows, and the same audit log: entry for entry, so hash for hash.
    expect(await pgTables(pool)).toEqual(sqliteTables(db));
    const pgAudit = await pgAuditRows(pool);
    expect(pgAudit).toEqual(db.prepare(`SELECT * FROM audit_log ORDER BY id`).all());
    expect(pgAudit).toHaveLength(steps.length);
    expect(pgAudit.map((a) => a.outcome)).toEqual(steps.map((s) => (s.expect === "applied" ? "applied" : "refused")));
    const client = await pool.connect();
    try {
      expect(await verifyAuditLogPg(client, KEY)).toEqual(verifyAuditLog(db, KEY));
      expect((await verifyAuditLogPg(client, KEY)).ok).toBe(true);
    } finally {
      client.release();
    }
    db.close();
  });

  it("bad input is refused, audited, and changes nothing else", async () => {
    const { db, pool } = await twinJournals();
    db.close();
    const before = await pgTables(pool);
    const posts: [string, () => PgActionSpec<z.ZodType, unknown, unknown>, Record<string, unknown>, string?][] = [
      ["halt with no reason", haltBotPgSpec as never, { botId: "bot-b", reason: "", breakerVersion: "1" }],
      ["halt with a version that is no number", haltBotPgSpec as never, { botId: "bot-b", reason: "venue maintenance", breakerVersion: "one" }],
      [
        "clear with a NUL byte in the bot id",
        (() => clearHaltPgSpec(clearDeps)) as never,
        { botId: "bot-a\u0000", breakerVersion: "2", reason: "ok now", confirmBotId: "bot-a\u0000" },
        "refused",
      ],
      [
        "resolve with a negative fill",
        (() => resolveManuallyPgSpec({ graceMs: GRACE })) as never,
        { clientOrderId: "d-1", version: "3", status: "filled", filledQty: "-1", note: "venue fills page" },
      ],
      [
        "correct with no cycle",
        (() => correctBookPgSpec({ ackTtlMs: 1 })) as never,
        { botId: "bot-c", symbol: "TSLA", kind: "adopt_exchange", ours: "0", theirs: "7", note: "venue shows 7" },
      ],
      [
        "acknowledge with a field of 40 KB",
        (() => acknowledgeDriftPgSpec({ ackTtlMs: 1 })) as never,
        { botId: "bot-c", symbol: "AAPL", drift: "size_drift", ours: "100", theirs: "40", note: "x".repeat(40_000) },
      ],
    ];
    for (const [name, spec, form, code] of posts) {
      const r = await runGuardedPg(spec(), { user: ana, now: () => NOW, refusalLog: quietLog, auditKey: KEY, pool }, form);
      // A NUL byte parses as an id, which PostgreSQL text cannot hold: refused as an unknown bot, not a failure.
      if (code === "refused") expect(r, name).toEqual({ ok: false, code: "refused", message: "No breaker for bot bot-a\u0000.", reasons: [] });
      else expect(r, name).toMatchObject({ ok: false, code: "invalid", message: "Some fields need fixing. Nothing was changed." });
    }
    expect(await pgTables(pool)).toEqual(before);
    const audit = await pgAuditRows(pool);
    expect(audit.map((a) => [a.outcome, a.code])).toEqual(posts.map((p) => ["refused", p[3] ?? "invalid"]));
    // The 40 KB field is kept as its length and a short prefix, never whole.
    expect(audit.at(-1)!.detail.length).toBeLessThan(2_000);
    const client = await pool.connect();
    try {
      expect((await verifyAuditLogPg(client, KEY)).ok).toBe(true);
    } finally {
      client.release();
    }
  });

  it("two operators clearing at once from two processes: exactly one wins, the other is told the breaker changed", async () => {
    const { db, pool, url } = await twinJournals();
    db.close();
    // The ended drift acknowledged first, so the clear's checklist holds.
    const ack = await runGuardedPg(
      acknowledgeEndedDriftPgSpec({ ackTtlMs: 3_600_000 }),
      { user: ana, now: () => NOW, auditKey: KEY, pool },
      { botId: "bot-a", symbol: "MSFT", reconciliationId: "2", note: "checked MSFT on the venue" },
    );
    expect(ack.ok).toBe(true);
    const form = { botId: "bot-a", breakerVersion: "2", reason: "book repaired by hand", confirmBotId: "bot-a" };
    const startAt = Date.now() + 2_000;
    const race = (name: string) =>
      new Promise<ActionResult<unknown>>((resolve, reject) => {
        const child = spawn(
          path.join(repoRoot, "node_modules/.bin/tsx"),
          ["--conditions=react-server", "test/helpers/pg-clear-race.ts", url, name, JSON.stringify(form), NOW.toISOString(), String(startAt), KEY],
          { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] },
        );
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`race child exited ${code}: ${out}`))));
      });
    const results = await Promise.all([race("ana"), race("ben")]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const lost = results.find((r) => !r.ok) as Extract<ActionResult<unknown>, { ok: false }>;
    expect(lost.code).toBe("conflict");
    expect(lost.message).toBe("The breaker of bot-a changed since you loaded the page (version 2, now 3). Look again.");
    const tables = await pgTables(pool);
    expect(tables.breaker_events!.filter((e) => (e as { kind: string }).kind === "clear")).toHaveLength(1);
    expect(tables.breakers!.find((b) => (b as { bot_id: string }).bot_id === "bot-a")).toMatchObject({ halted: 0, version: 3 });
    const audits = (await pgAuditRows(pool)).filter((a) => a.action === "clear_halt");
    expect(audits.map((a) => a.outcome).sort()).toEqual(["applied", "refused"]);
    expect(new Set(audits.map((a) => a.actor))).toEqual(new Set(["operator:ana", "operator:ben"]));
    const client = await pool.connect();
    try {
      expect(await verifyAuditLogPg(client, KEY)).toMatchObject({ ok: true, entries: 3 });
    } finally {
      client.release();
    }
  });

  /** A bot's transaction that trips bot-a's breaker again and holds the row until told to commit. */
  async function botTripsAgain(url: string) {
    const bot = new pg.Client({ connectionString: url });
    await bot.connect();
    await bot.query("BEGIN");
    await bot.query(`UPDATE breakers SET reason = 'drift on AAPL again', changed_at = $1, changed_by = 'bot', version = version + 1 WHERE bot_id = 'bot-a'`, [
      at(119),
    ]);
    return bot;
  }
  const waitingOnALock = async (pool: pg.Pool) => {
    for (;;) {
      const r = await pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`);
      if (r.rows[0].n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const clearForm = { botId: "bot-a", breakerVersion: "2", reason: "book repaired by hand", confirmBotId: "bot-a" };
  async function clearable() {
    const j = await twinJournals();
    j.db.close();
    const ack = await runGuardedPg(
      acknowledgeEndedDriftPgSpec({ ackTtlMs: 3_600_000 }),
      { user: ana, now: () => NOW, auditKey: KEY, pool: j.pool },
      { botId: "bot-a", symbol: "MSFT", reconciliationId: "2", note: "checked MSFT on the venue" },
    );
    expect(ack.ok).toBe(true);
    return j;
  }

  it("a bot tripping the breaker while a clear runs: the clear waits for the row, then is refused on the new version", async () => {
    const { pool, url } = await clearable();
    const bot = await botTripsAgain(url);
    const clearing = runGuardedPg(clearHaltPgSpec(clearDeps), { user: ana, now: () => NOW, auditKey: KEY, pool }, clearForm);
    await waitingOnALock(pool);
    await bot.query("COMMIT");
    await bot.end();
    expect(await clearing).toEqual({
      ok: false,
      code: "conflict",
      message: "The breaker of bot-a changed since you loaded the page (version 2, now 3). Look again.",
      reasons: ["breaker version 2 seen, 3 now"],
    });
    const tables = await pgTables(pool);
    expect(tables.breakers!.find((b) => (b as { bot_id: string }).bot_id === "bot-a")).toMatchObject({ halted: 1, version: 3, reason: "drift on AAPL again" });
    expect((await pgAuditRows(pool)).at(-1)).toMatchObject({ action: "clear_halt", outcome: "refused", code: "conflict" });
  });

  it("a row held by a bot past the lock timeout: refused, nothing changed, and said not to be in the audit log", async () => {
    const { pool, url } = await clearable();
    const bot = await botTripsAgain(url);
    const before = await pgAuditRows(pool);
    const r = await runGuardedPg(clearHaltPgSpec(clearDeps), { user: ana, now: () => NOW, auditKey: KEY, pool, lockTimeoutMs: 200 }, clearForm);
    await bot.query("ROLLBACK");
    await bot.end();
    expect(r).toEqual({
      ok: false,
      code: "internal",
      message:
        "Nothing was changed: the journal's rows stayed locked by another transaction (lock_timeout). Try again once it is free. This attempt is not in the audit log (the journal could not record it); the console's server log has it.",
    });
    expect(await pgAuditRows(pool)).toEqual(before);
    expect((await pgTables(pool)).breakers!.find((b) => (b as { bot_id: string }).bot_id === "bot-a")).toMatchObject({ halted: 1, version: 2 });
  });

  it("forty actions at once over two pools: each answered, each audited once, the chain unbroken", async () => {
    const { pool, url } = await twinJournals();
    const other = quietPool(url);
    pools.push(other);
    // Halts of bot-b, bot-c and bot-d with every version from 1 to 4: three can apply, the rest are refused.
    const posts = Array.from({ length: 40 }, (_, i) => ({
      pool: i % 2 === 0 ? pool : other,
      user: i % 3 === 0 ? ben : ana,
      form: { botId: ["bot-b", "bot-c", "bot-d"][i % 3]!, reason: `drill number ${i}`, breakerVersion: String(1 + (i % 4)) },
    }));
    const results = await Promise.all(posts.map((p) => runGuardedPg(haltBotPgSpec(), { user: p.user, now: () => NOW, auditKey: KEY, pool: p.pool }, p.form)));
    expect(results.filter((r) => r.ok)).toHaveLength(3);
    // Which of the other 37 is refused ("already halted") and which is a conflict (its version moved) depends
    // on the order the two pools reach each row: a run where each bot's version-1 halt came first has no
    // conflict at all. What must hold is that each is one of the two, with its own reason, and none failed.
    for (const r of results) {
      if (r.ok) continue;
      if (r.code === "refused") expect(r.message).toMatch(/is already halted since/);
      else expect(r.code, r.message).toBe("conflict");
    }
    const audit = await pgAuditRows(pool);
    expect(audit).toHaveLength(40);
    expect(audit.map((a) => a.id)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const client = await pool.connect();
    try {
      expect(await verifyAuditLogPg(client, KEY)).toMatchObject({ ok: true, entries: 40 });
    } finally {
      client.release();
    }
    const trips = (await pgTables(pool)).breaker_events!.filter((e) => (e as { kind: string }).kind === "trip");
    expect(trips).toHaveLength(3);
  });
});
