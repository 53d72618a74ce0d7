/**
 * A PostgreSQL source read by the console (issue 15, step 2), against a real server the test
 * starts (test/helpers/postgres.ts): the demo scenarios' journals copied from SQLite into
 * PostgreSQL (tools/lib/pg-copy.ts) give the same overview and the same doubtful list on both
 * engines; each way a PostgreSQL source can fail (the server stopped, a wrong password, an empty
 * database, a journal newer than the console) shows its own banner beside a live SQLite source,
 * its bots UNKNOWN, and recovers by itself once fixed; the live watcher notices a PostgreSQL
 * write; the incident pages (the list, each story, the window minute by minute and its export)
 * read the same on both engines; no message carries the password.
 */
import fs from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JournalSource, SourceSet, type ConsoleSource } from "@/lib/db/console";
import { migratePgJournal } from "@/lib/db/pg-journal";
import { PgJournalSource } from "@/lib/db/pg-source";
import { queryOf } from "@/lib/db/query";
import { env } from "@/lib/env";
import { metricsText, readMetrics } from "@/lib/http/metrics";
import { parseLiveViewList } from "@/lib/live/view-names";
import { getMetrics } from "@/lib/queries/metrics";
import { JournalWatcher, PING_FRAME } from "@/lib/live/watcher";
import {
  loadAudit,
  loadBotClear,
  loadBreakerBoard,
  loadDoubtfulOrders,
  loadIncidentBots,
  loadIncidentExport,
  loadIncidentList,
  loadIncidentStory,
  loadIncidentWindow,
  loadOverview,
  loadSymbolChart,
  loadSymbolState,
  readBotClear,
  readIncidentList,
  readOverview,
  readSymbolState,
} from "@/lib/queries/screens";
import { readSymbolChart } from "@/lib/queries/symbol-chart";
import { readScreen } from "@/lib/queries/read";
import { SCENARIO_NAMES, SCENARIOS } from "@/tools/demo/scenarios";
import { INCIDENT_KINDS } from "@/lib/url-state/incidents";
import { copySqliteJournalToPg } from "@/tools/lib/pg-copy";
import { botOnSim } from "../helpers/bot";
import { consoleDb } from "../helpers/console-db";
import { migratedJournal, migrationsDir } from "../helpers/journal";
import { postgresAvailable, startPostgres, type PostgresServer } from "../helpers/postgres";

let server: PostgresServer;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  if (!postgresAvailable) return;
  server = await startPostgres({ label: "pg-source" });
}, 120_000);
afterAll(async () => {
  for (const c of closers.reverse()) await c();
  await server?.stop();
});

const urlOf = (db: string, user = "postgres", password?: string) => `postgresql://${user}${password ? `:${password}` : ""}@127.0.0.1:${server.port}/${db}`;

async function admin(sql: string, db = "postgres"): Promise<void> {
  const c = new pg.Client({ connectionString: urlOf(db) });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** A database holding a migrated journal; `from`: a SQLite journal copied into it. */
async function pgJournal(name: string, from?: string): Promise<string> {
  await admin(`CREATE DATABASE "${name}"`);
  const c = new pg.Client({ connectionString: urlOf(name) });
  await c.connect();
  try {
    await migratePgJournal(c);
  } finally {
    await c.end();
  }
  if (from) await copySqliteJournalToPg(from, urlOf(name));
  return urlOf(name);
}

function pgSource(name: string, url: string, password?: () => string | undefined): PgJournalSource {
  const s = new PgJournalSource(
    { name, kind: "postgres", file: url, passwordEnv: password ? "DW_TEST_PG_PASSWORD" : null, password: password ?? (() => undefined) },
    { migrationsDir, log: () => {}, connectTimeoutMs: 2_000 },
  );
  closers.push(() => s.close());
  return s;
}

const config = () => env();

describe.skipIf(!postgresAvailable)("a PostgreSQL source", () => {
  it.each(SCENARIO_NAMES)(
    "shows scenario %s as SQLite does: the same overview, doubtful list, breakers, audit log and bot pages",
    async (name) => {
      const result = await SCENARIOS[name].run({ file: migratedJournal(`pg-${name}`), migrationsDir });
      const url = await pgJournal(`s_${name.replace(/-/g, "_")}`, result.file);
      const sqlite = consoleDb(result.file);
      closers.push(sqlite.close);
      const source = pgSource(name, url);
      const handle = await source.check();
      if (!handle.ok) throw handle.error;
      const now = new Date(Date.parse(result.to) + 1_000);
      for (const names of [true, false]) {
        const onSqlite = { q: queryOf(sqlite.db), config: config(), now, names };
        const onPg = { q: handle.q, config: config(), now, names };
        const [a, b] = [await loadOverview(onSqlite), await loadOverview(onPg)];
        expect(b).toEqual(a);
        expect(a.bots.length).toBeGreaterThan(0);
        expect(await loadDoubtfulOrders({ ...onPg, botId: null })).toEqual(await loadDoubtfulOrders({ ...onSqlite, botId: null }));
        expect(await loadAudit({ ...onPg, actor: null, action: null, before: null })).toEqual(
          await loadAudit({ ...onSqlite, actor: null, action: null, before: null }),
        );
        expect(await loadBreakerBoard({ ...onPg, bot: null, before: null })).toEqual(await loadBreakerBoard({ ...onSqlite, bot: null, before: null }));
        const bot = a.bots[0]!.botId;
        expect(await loadDoubtfulOrders({ ...onPg, botId: bot })).toEqual(await loadDoubtfulOrders({ ...onSqlite, botId: bot }));
        // Each bot's page: its card, the clear checklist, the drifts acknowledged or not, clear requests and book corrections.
        for (const { botId } of a.bots) {
          for (const twoPersonClear of [false, true]) {
            const withRule = { ...config(), twoPersonClear };
            const onBoth = [await loadBotClear({ ...onSqlite, config: withRule, botId }), await loadBotClear({ ...onPg, config: withRule, botId })];
            expect(onBoth[1]).toEqual(onBoth[0]);
            expect(onBoth[0]).not.toBeNull();
          }
        }
        expect(await loadBotClear({ ...onPg, botId: "no-such-bot" })).toBeNull();
        // Each symbol's page: its line and orders, and its chart over the last 15 minutes, the day, and the
        // whole run drawn in 28 points (so from the five-minute rollups the triggers keep on both engines).
        const whole = { kind: "custom", from: new Date(Date.parse(result.to) - 86_400_000).toISOString(), to: now.toISOString() } as const;
        for (const { botId, symbol } of a.lines) {
          expect(await loadSymbolState({ ...onPg, botId, symbol, ordersLimit: 50 })).toEqual(
            await loadSymbolState({ ...onSqlite, botId, symbol, ordersLimit: 50 }),
          );
          for (const range of [{ kind: "15m" }, { kind: "day" }, whole] as const) {
            expect(await loadSymbolChart({ ...onPg, botId, symbol, range })).toEqual(await loadSymbolChart({ ...onSqlite, botId, symbol, range }));
          }
          const few = { botId, symbol, range: whole, now, maxPoints: 28 };
          const charts = [await readSymbolChart({ ...few, db: onSqlite.q }), await readSymbolChart({ ...few, db: onPg.q })];
          expect(charts[1]).toEqual(charts[0]);
          expect(charts[0]!.points.length).toBeGreaterThan(0);
        }
        expect(a.lines.length).toBeGreaterThan(0);
        expect(await loadSymbolState({ ...onPg, botId: a.bots[0]!.botId, symbol: "NOSUCH", ordersLimit: 50 })).toEqual(
          await loadSymbolState({ ...onSqlite, botId: a.bots[0]!.botId, symbol: "NOSUCH", ordersLimit: 50 }),
        );
        // The incident pages: the list, each incident's story, the window around it minute by minute
        // (folded in SQL on SQLite, in the fold on PostgreSQL: the same page), and its export.
        const list = [await loadIncidentList({ ...onSqlite, bot: null }), await loadIncidentList({ ...onPg, bot: null })];
        expect(list[1]).toEqual(list[0]);
        // Every trip of the scenario is an incident on both (so the loop below is not over nothing).
        expect(list[0]!.items.length).toBe(sqlite.db.$client.prepare(`SELECT count(*) FROM breaker_events WHERE kind = 'trip'`).pluck().get());
        expect(await loadIncidentBots(onPg)).toEqual(await loadIncidentBots(onSqlite));
        for (const item of list[0]!.items) {
          const story = [await loadIncidentStory({ ...onSqlite, id: item.id }), await loadIncidentStory({ ...onPg, id: item.id })];
          expect(story[1]).toEqual(story[0]);
          expect(story[0]).not.toBeNull();
          const window = { from: story[0]!.window.from, to: story[0]!.window.to, filters: { bot: null, kinds: [...INCIDENT_KINDS] } };
          const folded = [await loadIncidentWindow({ ...onSqlite, ...window }), await loadIncidentWindow({ ...onPg, ...window })];
          expect({ ...folded[1], timeline: { ...folded[1]!.timeline, countedInSql: null } }).toEqual({
            ...folded[0],
            timeline: { ...folded[0]!.timeline, countedInSql: null },
          });
          const exported = [await loadIncidentExport({ ...onSqlite, ...window }), await loadIncidentExport({ ...onPg, ...window })].map((e) => ({
            ...e,
            timeline: { ...e.timeline, events: [...e.timeline.events()] },
          }));
          expect(exported[1]).toEqual(exported[0]);
          expect(exported[0]!.timeline.events.length).toBeGreaterThan(0);
        }
        // The default window (the hour up to the latest activity, the morning after).
        const latest = { from: null, to: null, filters: { bot: null, kinds: [...INCIDENT_KINDS] } };
        const defaulted = [await loadIncidentWindow({ ...onSqlite, ...latest }), await loadIncidentWindow({ ...onPg, ...latest })];
        expect(defaulted[1]!.window).toEqual(defaulted[0]!.window);
        expect(defaulted[1]!.timeline.minutes).toEqual(defaulted[0]!.timeline.minutes);
        // What Prometheus scrapes, so a PostgreSQL bot pages as a SQLite one does.
        const metrics = [await getMetrics(onSqlite), await getMetrics(onPg)];
        expect(metrics[1]).toEqual(metrics[0]);
        expect((await metricsText({ ok: true, data: metrics[1]! })).body).toBe((await metricsText({ ok: true, data: metrics[0]! })).body);
      }
    },
    120_000,
  );

  it("shows each of its troubles as its own banner beside a live SQLite source, its bots UNKNOWN, and recovers from each by itself", async () => {
    // The SQLite source: a bot of its own (the scenarios all name the same bots), reconciled and beating.
    const local = botOnSim({ botId: "local-1", prefix: "l100", startAt: new Date() });
    closers.push(local.close);
    await local.writer.reconcile({ symbols: ["AAPL"] });
    local.writer.heartbeat();
    const lite = { file: local.file };
    const remote = await SCENARIOS["lost-reply-unknown"].run({ file: migratedJournal("pg-remote"), migrationsDir });
    const url = await pgJournal("troubles", remote.file);
    await admin(`SET password_encryption = 'scram-sha-256'; CREATE ROLE dw_reader LOGIN PASSWORD 'right-pass'; GRANT pg_read_all_data TO dw_reader`);
    // That user signs in with its password (scram), whatever the trust lines below say.
    fs.writeFileSync(server.hbaFile, `host all dw_reader 127.0.0.1/32 scram-sha-256\n${fs.readFileSync(server.hbaFile, "utf8")}`);
    await admin("SELECT pg_reload_conf()");
    let password = "wrong-pass";
    const remoteSource = pgSource("hosts", url.replace("postgres@", "dw_reader@"), () => password);
    const sqliteSource = new JournalSource(lite.file, { migrationsDir, log: () => {} });
    closers.push(() => sqliteSource.close());
    const sources: ConsoleSource[] = [
      { name: "local", kind: "sqlite", file: lite.file, journal: sqliteSource },
      { name: "hosts", kind: "postgres", file: remoteSource.file, journal: remoteSource },
    ];
    const set = new SourceSet(sources);
    const overview = async () => {
      const read = await readOverview({ names: true, set });
      if (!read.ok) throw new Error(read.error.message);
      return read.data;
    };
    const expectTrouble = async (code: string, words: RegExp) => {
      const o = await overview();
      expect(o.sources).toEqual([
        { name: "local", ok: true, problem: null },
        { name: "hosts", ok: false, problem: expect.objectContaining({ code, problem: expect.stringMatching(words) }) },
      ]);
      expect(o.bots.filter((b) => b.source === "local").every((b) => b.status !== "unknown")).toBe(true);
      expect(o.bots.filter((b) => b.source === "hosts").map((b) => b.status)).toEqual(o.bots.filter((b) => b.source === "hosts").map(() => "unknown"));
      expect(o.alarms.some((a) => a.startsWith("source hosts: its journal ") && a.endsWith(". Its bots are UNKNOWN"))).toBe(true);
      expect(JSON.stringify(o)).not.toContain("right-pass");
      expect(JSON.stringify(o)).not.toContain("wrong-pass");
      return o;
    };

    // A wrong password: authentication, with what to check; the password itself nowhere.
    const refused = await expectTrouble("authentication", /refused the console's sign-in/);
    expect(refused.sources![1]!.problem!.fix).toContain("DW_TEST_PG_PASSWORD");
    password = "right-pass";
    const fine = await overview();
    expect(fine.sources!.every((s) => s.ok)).toBe(true);
    const hostsBots = fine.bots.filter((b) => b.source === "hosts");
    expect(hostsBots.length).toBeGreaterThan(0);
    expect(hostsBots.every((b) => b.status !== "unknown")).toBe(true);

    // A journal newer than this console: future_schema; back to the version it knows, read again.
    await admin("UPDATE journal_schema SET version = version + 1", "troubles");
    await expectTrouble("future_schema", /newer than this driftwatch knows/);
    await admin("UPDATE journal_schema SET version = version - 1", "troubles");
    expect((await overview()).sources!.every((s) => s.ok)).toBe(true);
    const scrape = (await metricsText(await readMetrics(set))).body;
    expect(scrape).toContain('driftwatch_journal_readable{reason="",source="hosts"} 1');
    expect(scrape).toContain(`driftwatch_bot_halted{bot="${hostsBots[0]!.botId}"}`);

    // An older one: older_schema, with the migration to run.
    await admin("UPDATE journal_schema SET version = version - 1", "troubles");
    const older = await expectTrouble("older_schema", /this driftwatch needs/);
    expect(older.sources![1]!.problem!.fix).toContain("drizzle/pg");
    await admin("UPDATE journal_schema SET version = version + 1", "troubles");

    // The server stopped: unreachable, the SQLite source still live; started again: read again.
    await server.halt();
    try {
      await expectTrouble("unreachable", /cannot be reached/);
      // The bot's own page says which journal it waits for.
      const page = await readBotClear({ names: true, botId: hostsBots[0]!.botId, set });
      expect(page).toMatchObject({ ok: false, source: "hosts", error: { code: "unreachable" } });
      // The scrape says which journal it cannot read, and still carries the other's bots.
      const scrape = (await metricsText(await readMetrics(set))).body;
      expect(scrape).toContain('driftwatch_journal_readable{reason="unreachable",source="hosts"} 0');
      expect(scrape).toMatch(/driftwatch_journal_readable\{reason="",source="local"\} 1/);
    } finally {
      await server.resume();
    }
    expect((await overview()).sources!.every((s) => s.ok)).toBe(true);

    // The bot's page, its symbol page and the incident pages read its PostgreSQL journal.
    const botPage = await readBotClear({ names: true, botId: hostsBots[0]!.botId, set });
    expect(botPage).toMatchObject({ ok: true, data: { bot: { botId: hostsBots[0]!.botId } } });
    const symbolPage = await readSymbolState({ names: true, botId: hostsBots[0]!.botId, symbol: "BTCUSDT", ordersLimit: 20, set });
    expect(symbolPage).toMatchObject({ ok: true, data: { botId: hostsBots[0]!.botId } });
    const incidents = await readIncidentList({ names: true, bot: null, set });
    expect(incidents.ok && incidents.data.sources!.every((s) => s.ok)).toBe(true);
    // A SQLite-only read (none is left on a page) would say so plainly, never blank or green.
    const sqliteOnly = await readScreen(({ db }) => db.$client.prepare("SELECT 1").get(), remoteSource);
    expect(sqliteOnly).toMatchObject({ ok: false, error: { code: "not_on_postgres" } });
    const localBot = fine.bots.find((b) => b.source === "local")!.botId;
    expect((await readBotClear({ names: true, botId: localBot, set })).ok).toBe(true);
  }, 180_000);

  it("says an empty database has no journal schema, and reads it once it is migrated", async () => {
    await admin(`CREATE DATABASE "empty"`);
    const source = pgSource("empty", urlOf("empty"));
    const first = await source.check();
    expect(first).toMatchObject({ ok: false, error: { code: "no_schema", problem: expect.stringContaining("no journal schema") } });
    const c = new pg.Client({ connectionString: urlOf("empty") });
    await c.connect();
    await migratePgJournal(c);
    await c.end();
    expect((await source.check()).ok).toBe(true);
    // Nothing listens there: unreachable at once, not a hang.
    const nowhere = pgSource("nowhere", `postgresql://postgres@127.0.0.1:1/none`);
    expect(await nowhere.check()).toMatchObject({ ok: false, error: { code: "unreachable" } });
  }, 60_000);

  it("sends a write on the PostgreSQL journal to the live overview, by its change signal", async () => {
    const remote = await SCENARIOS["quiet-day"].run({ file: migratedJournal("pg-live"), migrationsDir });
    const url = await pgJournal("live", remote.file);
    const source = pgSource("live", url);
    const set = new SourceSet([{ name: "live", kind: "postgres", file: source.file, journal: source }]);
    const watcher = new JournalWatcher(set, { recheckMs: 3_600_000 });
    closers.push(() => watcher.stop());
    const events: { ok: boolean; data?: { bots: { botId: string; heartbeatAt: string | null }[] } }[] = [];
    const views = parseLiveViewList("overview");
    if (!views.ok) throw new Error(views.message);
    watcher.subscribe({ send: (f) => f !== PING_FRAME && events.push(JSON.parse(/\ndata: (.*)\n\n$/.exec(f)![1]!)) }, views.value, true);
    await watcher.ready;
    expect(events).toHaveLength(1);
    expect(events[0]!.ok).toBe(true);
    const botId = events[0]!.data!.bots[0]!.botId;
    await watcher.tick();
    expect(events).toHaveLength(1);
    await admin(`UPDATE bots SET heartbeat_at = '2099-01-01T00:00:00.000Z' WHERE bot_id = '${botId}'`, "live");
    await watcher.tick();
    expect(events).toHaveLength(2);
    expect(events[1]!.data!.bots.find((b) => b.botId === botId)!.heartbeatAt).toBe("2099-01-01T00:00:00.000Z");
  }, 60_000);
});
