/**
 * One console on several journal files (DRIFTWATCH_JOURNAL=a.db,b.db,c.db): the screens merge
 * them, each journal's trouble stays its own (its banner, its bots UNKNOWN, the others live) and
 * ends by itself, an action lands in the bot's own file with its audit entry there, and a bot id
 * in two journals is refused at start and on every read that meets it. Real files; the lock is
 * held by a second process.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runGuarded } from "@/lib/actions/guard";
import { haltBotSpec } from "@/lib/actions/halt-bot";
import { actionSource } from "@/lib/actions/target";
import { consoleAuditKey, resolveAuditKey } from "@/lib/audit/key";
import { appendAudit } from "@/lib/audit/log";
import { JournalSource, SourceSet } from "@/lib/db/console";
import { metricsText, readMetrics } from "@/lib/http/metrics";
import { parseLiveViewList } from "@/lib/live/view-names";
import { JournalWatcher, PING_FRAME } from "@/lib/live/watcher";
import type { Overview } from "@/lib/queries/overview";
import { readBotScreen } from "@/lib/queries/read";
import {
  loadBotClear,
  readAudit,
  readBreakerBoard,
  readDoubtfulOrders,
  readIncidentExport,
  readIncidentList,
  readIncidentStory,
  readIncidentWindow,
  readOverview,
} from "@/lib/queries/screens";
import { INCIDENT_KINDS } from "@/lib/url-state/incidents";
import { incidentPostmortem, postmortemFilename } from "@/lib/incidents/postmortem";
import { ana, auditRows, consoleWriter } from "../helpers/actions";
import { startFault } from "../helpers/faults";
import { freshPgJournal } from "../helpers/pg-journal";
import { postgresAvailable, startPostgres, type PostgresServer } from "../helpers/postgres";
import { migratedJournal, migrationsDir, repoRoot, sqliteCli, tempDir } from "../helpers/journal";

let cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

function journalWith(label: string, bots: string[]): string {
  const file = migratedJournal(label);
  const at = new Date().toISOString();
  sqliteCli(
    file,
    bots
      .map(
        (b, i) =>
          `INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES ('${b}', 'sim', '${label.slice(0, 1)}${i}', '${at}');
           INSERT INTO breakers (bot_id, halted, changed_at, changed_by) VALUES ('${b}', 0, '${at}', 'bot');`,
      )
      .join("\n"),
  );
  return file;
}

/** Three journals as the console holds them, named as DRIFTWATCH_JOURNAL names them. */
function fleet() {
  const files = { alpha: journalWith("alpha", ["alpha-1", "alpha-2"]), beta: journalWith("beta", ["beta-1"]), gamma: journalWith("gamma", ["gamma-1"]) };
  const set = new SourceSet(
    Object.entries(files).map(([name, file]) => ({ name, kind: "sqlite" as const, file, journal: new JournalSource(file, { migrationsDir, log: () => {} }) })),
  );
  cleanup.push(() => set.close());
  return { files, set };
}

const overviewOf = async (set: SourceSet) => {
  const read = await readOverview({ names: true, set });
  if (!read.ok) throw new Error(read.error.message);
  return read.data;
};
/** "read": its journal answered; "UNKNOWN": its journal cannot be read, so it is shown unknown. */
const statusOf = (o: Overview) =>
  Object.fromEntries(
    o.bots.map((b) => [b.botId, `${b.source}:${b.status === "unknown" && b.reasons.some((r) => r.startsWith("its journal")) ? "UNKNOWN" : "read"}`]),
  );
const failing = (o: Overview) => (o.sources ?? []).filter((s) => !s.ok).map((s) => `${s.name}:${s.problem!.code}`);

async function startupCheckOn(files: string[]): Promise<{ thrown: unknown; errors: string[] }> {
  const before = { ...process.env };
  process.env.DRIFTWATCH_JOURNAL = files.join(",");
  process.env.DRIFTWATCH_ACCOUNTS_DB = path.join(tempDir("accounts"), "accounts.db");
  cleanup.push(() => {
    process.env = before;
    vi.resetModules();
  });
  vi.resetModules();
  const errors: string[] = [];
  const spy = vi.spyOn(console, "log").mockImplementation(() => {});
  const spyError = vi.spyOn(console, "error").mockImplementation((line: string) => void errors.push(line));
  cleanup.push(
    () => spy.mockRestore(),
    () => spyError.mockRestore(),
  );
  const { checkJournalAtStart } = await import("@/lib/db/startup-check");
  try {
    await checkJournalAtStart();
    return { thrown: undefined, errors };
  } catch (e) {
    errors.push((e as Error).message);
    return { thrown: e, errors };
  }
}

describe("several journals in one console", () => {
  it("merges every journal's bots on the overview, each named with its source", async () => {
    const { set } = fleet();
    const o = await overviewOf(set);
    expect(statusOf(o)).toEqual({ "alpha-1": "alpha:read", "alpha-2": "alpha:read", "beta-1": "beta:read", "gamma-1": "gamma:read" });
    expect(o.sources!.map((s) => [s.name, s.ok])).toEqual([
      ["alpha", true],
      ["beta", true],
      ["gamma", true],
    ]);
  });

  it("shows a journal deleted mid-run as its banner and its bots UNKNOWN, the others still read, and recovers once it is back", async () => {
    const { files, set } = fleet();
    await overviewOf(set);
    const away = `${files.gamma}.away`;
    fs.renameSync(files.gamma, away);
    const o = await overviewOf(set);
    expect(failing(o)).toEqual(["gamma:gone"]);
    expect(statusOf(o)).toEqual({ "alpha-1": "alpha:read", "alpha-2": "alpha:read", "beta-1": "beta:read", "gamma-1": "gamma:UNKNOWN" });
    expect(o.alarms.some((a) => a.startsWith("source gamma: its journal ") && a.endsWith(". Its bots are UNKNOWN"))).toBe(true);
    // The bot's own page says which journal it waits for; another bot's page is served.
    const gammaPage = await readBotScreen("gamma-1", (ctx) => loadBotClear({ ...ctx, names: true, botId: "gamma-1" }), set);
    expect(gammaPage).toMatchObject({ ok: false, error: { code: "gone", file: files.gamma } });
    expect((await readBotScreen("beta-1", (ctx) => loadBotClear({ ...ctx, names: true, botId: "beta-1" }), set)).ok).toBe(true);
    // The fleet lists say so too, beside the others' rows.
    const board = await readBreakerBoard({ names: true, bot: null, before: null, set });
    expect(board.ok && board.data.bots.map((b) => b.botId)).toEqual(["alpha-1", "alpha-2", "beta-1"]);
    expect(board.ok && board.data.sources!.filter((x) => !x.ok).map((x) => x.name)).toEqual(["gamma"]);
    const doubtful = await readDoubtfulOrders({ names: true, botId: null, set });
    expect(doubtful.ok && "sources" in doubtful.data && doubtful.data.sources!.filter((x) => !x.ok).map((x) => x.name)).toEqual(["gamma"]);

    fs.renameSync(away, files.gamma);
    const back = await overviewOf(set);
    expect(failing(back)).toEqual([]);
    expect(statusOf(back)["gamma-1"]).toBe("gamma:read");
  });

  it("keeps a bot halted when its journal was last read named as halted, with that time, while its journal is gone, and reads it again once back", async () => {
    const { files, set } = fleet();
    const trippedAt = new Date(Date.now() - 60_000).toISOString();
    sqliteCli(files.beta, `UPDATE breakers SET halted = 1, reason = 'unknown position BTCUSDT', changed_at = '${trippedAt}' WHERE bot_id = 'beta-1';`);
    const before = await overviewOf(set);
    expect(before.bots.find((b) => b.botId === "beta-1")).toMatchObject({ breaker: { halted: true } });
    const away = `${files.beta}.away`;
    fs.renameSync(files.beta, away);
    const o = await overviewOf(set);
    const beta = o.bots.find((b) => b.botId === "beta-1")!;
    // Still UNKNOWN (nothing about it can be read now), and still named as halted, as of the last read.
    expect(statusOf(o)["beta-1"]).toBe("beta:UNKNOWN");
    expect(beta.status).toBe("unknown");
    expect(beta.lastKnownHalt).toEqual({ since: trippedAt, reason: "unknown position BTCUSDT", readAt: expect.any(String) });
    // When beta itself was read (the merged readAt is the newest of the journals').
    expect(Date.parse(beta.lastKnownHalt!.readAt)).toBeLessThanOrEqual(Date.parse(before.readAt));
    expect(Date.parse(beta.lastKnownHalt!.readAt)).toBeGreaterThan(Date.parse(trippedAt));
    expect(beta.reasons[0]).toMatch(
      /^HALTED when its journal was last read, at (.+ )?\d\d:\d\d:\d\d UTC \(halted since (.+ )?\d\d:\d\d:\d\d UTC\); nobody can tell now whether it still is$/,
    );
    // A bot that was running when its journal went away is unknown, not halted.
    fs.renameSync(files.gamma, `${files.gamma}.away`);
    const both = await overviewOf(set);
    expect(both.bots.find((b) => b.botId === "gamma-1")!.lastKnownHalt).toBeUndefined();
    expect(both.bots.find((b) => b.botId === "beta-1")!.lastKnownHalt?.since).toBe(trippedAt);
    fs.renameSync(`${files.gamma}.away`, files.gamma);

    fs.renameSync(away, files.beta);
    const back = await overviewOf(set);
    const again = back.bots.find((b) => b.botId === "beta-1")!;
    expect(again.lastKnownHalt).toBeUndefined();
    expect(again.breaker).toMatchObject({ halted: true, changedAt: trippedAt });
  });

  it("shows a journal replaced by a damaged file as its banner alone, and reads it again once restored", async () => {
    const { files, set } = fleet();
    await overviewOf(set);
    const good = `${files.alpha}.good`;
    fs.copyFileSync(files.alpha, good);
    fs.writeFileSync(`${files.alpha}.bad`, Buffer.alloc(8192, 0x5a));
    fs.renameSync(`${files.alpha}.bad`, files.alpha);
    const o = await overviewOf(set);
    expect(failing(o)).toEqual(["alpha:not_sqlite"]);
    expect(statusOf(o)).toMatchObject({ "alpha-1": "alpha:UNKNOWN", "alpha-2": "alpha:UNKNOWN", "beta-1": "beta:read", "gamma-1": "gamma:read" });
    fs.renameSync(good, files.alpha);
    expect(failing(await overviewOf(set))).toEqual([]);
  });

  it("shows a journal another process locks as its banner, the others live, and recovers when the lock goes", async () => {
    const { files, set } = fleet();
    // A rollback-journal file, so that another process's exclusive transaction keeps readers out.
    sqliteCli(files.beta, "PRAGMA journal_mode = DELETE;");
    await overviewOf(set);
    const holder = startFault(["lock", files.beta, "rollback", "3000"]);
    cleanup.push(() => holder.kill());
    await holder.waitFor("locked");
    const o = await overviewOf(set);
    expect(failing(o)).toEqual(["beta:locked"]);
    expect(statusOf(o)).toMatchObject({ "beta-1": "beta:UNKNOWN", "alpha-1": "alpha:read", "gamma-1": "gamma:read" });
    await holder.waitFor("released", 30_000);
    expect(failing(await overviewOf(set))).toEqual([]);
  });

  it("sends one journal's trouble on the merged live view while the others stay live, and its return", async () => {
    const { files, set } = fleet();
    const watcher = new JournalWatcher(set, { tickMs: 3_600_000, recheckMs: 3_600_000, pingMs: 0 });
    cleanup.push(() => watcher.stop());
    const events: { ok: boolean; data?: Overview }[] = [];
    const parsed = parseLiveViewList("overview");
    if (!parsed.ok) throw new Error(parsed.message);
    watcher.subscribe({ send: (f) => f !== PING_FRAME && events.push(JSON.parse(/\ndata: (.*)\n\n$/.exec(f)![1]!)) }, parsed.value, true);
    await watcher.ready;
    expect(events.at(-1)!.data!.bots).toHaveLength(4);
    fs.renameSync(files.beta, `${files.beta}.away`);
    await watcher.tick();
    expect(events.at(-1)).toMatchObject({ ok: true });
    expect(failing(events.at(-1)!.data!)).toEqual(["beta:gone"]);
    expect(statusOf(events.at(-1)!.data!)["beta-1"]).toBe("beta:UNKNOWN");
    // Another journal still moves on the same stream.
    sqliteCli(files.alpha, `UPDATE breakers SET halted = 1, reason = 'test', version = version + 1 WHERE bot_id = 'alpha-1';`);
    await watcher.tick();
    expect(events.at(-1)!.data!.bots.find((b) => b.botId === "alpha-1")!.breaker!.halted).toBe(true);
    fs.renameSync(`${files.beta}.away`, files.beta);
    await watcher.tick();
    expect(failing(events.at(-1)!.data!)).toEqual([]);
    expect(statusOf(events.at(-1)!.data!)["beta-1"]).toBe("beta:read");
  });

  it("scrapes every journal for Prometheus: one unreadable journal is its own readable 0 with its reason, the others' bots still scraped", async () => {
    const { files, set } = fleet();
    const scrape = async () => (await metricsText(await readMetrics(set))).body;
    const before = await scrape();
    for (const name of ["alpha", "beta", "gamma"]) {
      expect(before).toContain(`driftwatch_journal_readable{reason="",source="${name}"} 1`);
      expect(before).toContain(`driftwatch_audit_chain_entries{source="${name}"} 0`);
    }
    for (const bot of ["alpha-1", "alpha-2", "beta-1", "gamma-1"]) expect(before).toContain(`driftwatch_bot_halted{bot="${bot}"} 0`);

    fs.renameSync(files.gamma, `${files.gamma}.away`);
    const during = await scrape();
    expect(during).toContain('driftwatch_journal_readable{reason="gone",source="gamma"} 0');
    expect(during).toContain('driftwatch_journal_readable{reason="",source="alpha"} 1');
    expect(during).not.toContain('bot="gamma-1"');
    expect(during).not.toContain('driftwatch_audit_chain_entries{source="gamma"}');
    expect(during).toContain('driftwatch_bot_halted{bot="beta-1"} 0');

    fs.renameSync(`${files.gamma}.away`, files.gamma);
    expect(await scrape()).toContain('driftwatch_bot_halted{bot="gamma-1"} 0');
  });

  it("sends an action to the bot's own journal, with its audit entry there and nowhere else", async () => {
    const { files, set } = fleet();
    const target = await actionSource(set, { botId: "beta-1" });
    if (!target.ok) throw new Error(target.error.message);
    expect(target.source.name).toBe("beta");
    const result = await runGuarded(
      haltBotSpec(),
      { db: target.source.journal.writeConnection(), user: ana, auditKey: consoleAuditKey(), assertJournalFile: () => target.source.journal.assertSameFile() },
      { botId: "beta-1", reason: "stepping in from the fleet view", breakerVersion: "1" },
    );
    expect(result).toMatchObject({ ok: true });
    expect(auditRows(files.beta).map((r) => [r.action, r.target, r.outcome])).toEqual([["halt_bot", "beta-1", "applied"]]);
    expect(auditRows(files.alpha)).toEqual([]);
    expect(auditRows(files.gamma)).toEqual([]);
    expect(statusOf(await overviewOf(set))["beta-1"]).toBe("beta:read");
    expect((await overviewOf(set)).bots.find((b) => b.botId === "beta-1")!.breaker!.halted).toBe(true);
  });

  it("refuses an action for a bot whose journal cannot be read, naming that journal", async () => {
    const { files, set } = fleet();
    await overviewOf(set);
    fs.renameSync(files.gamma, `${files.gamma}.away`);
    expect(await actionSource(set, { botId: "gamma-1" })).toMatchObject({ ok: false, error: { code: "gone", file: files.gamma } });
    fs.renameSync(`${files.gamma}.away`, files.gamma);
  });

  it("routes an order's action by its client order id to the journal that holds the order", async () => {
    const { files, set } = fleet();
    const at = new Date().toISOString();
    sqliteCli(
      files.gamma,
      `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, created_at, updated_at) VALUES ('g0-1', 'gamma-1', 's', 'BTCUSDT', 'buy', 1, '${at}', 'sent', '${at}', '${at}');`,
    );
    const target = await actionSource(set, { clientOrderId: "g0-1" });
    expect(target.ok && target.source.name).toBe("gamma");
  });

  it("refuses a bot id two journals hold: on its page, for an action, and on the overview's alarms, naming both", async () => {
    const a = journalWith("left", ["twin"]);
    const b = journalWith("right", ["twin"]);
    const set = new SourceSet([
      { name: "left", kind: "sqlite", file: a, journal: new JournalSource(a, { migrationsDir, log: () => {} }) },
      { name: "right", kind: "sqlite", file: b, journal: new JournalSource(b, { migrationsDir, log: () => {} }) },
    ]);
    cleanup.push(() => set.close());
    const page = await readBotScreen("twin", (ctx) => loadBotClear({ ...ctx, names: true, botId: "twin" }), set);
    expect(page).toMatchObject({ ok: false, error: { code: "bot_clash" } });
    expect(!page.ok && page.error.problem).toMatch(/bot twin is in two journals: source left \(.*left.*\) and source right/);
    expect(await actionSource(set, { botId: "twin" })).toMatchObject({ ok: false, error: { code: "bot_clash" } });
    expect((await overviewOf(set)).alarms.some((x) => /bot twin is in two journals: source left/.test(x))).toBe(true);
  });

  /** The console's start-up check on these journals, as `npm start` runs it: what it threw, and what it logged before (then the thrown message). */

  it("stops the console at start when two journals hold the same bot id, naming both sources", async () => {
    const a = journalWith("one", ["shared-bot"]);
    const b = journalWith("two", ["shared-bot", "only-two"]);
    const { thrown, errors } = await startupCheckOn([a, b]);
    const { BotClashError } = await import("@/lib/db/startup-check");
    expect(thrown).toBeInstanceOf(BotClashError);
    expect(errors[0]).toContain(
      `bot shared-bot is in two journals: source ${path.basename(path.dirname(a))}-journal (${a}) and source ${path.basename(path.dirname(b))}-journal (${b})`,
    );
  });

  it("does not hold the start for a PostgreSQL source that cannot be reached: it says so, and checks its bots once it answers", async () => {
    const a = journalWith("one", ["solo"]);
    const started = Date.now();
    const { thrown, errors } = await startupCheckOn([a, "postgresql://nobody@127.0.0.1:1/journal"]);
    expect(thrown).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(errors.some((e) => /cannot be read at start \(.+\); its bot ids are checked against the others once it answers/.test(e))).toBe(true);
  });

  it("names every bot id two journals hold at start, and says what to do once", async () => {
    const a = journalWith("one", ["twin-a", "twin-b"]);
    const b = journalWith("two", ["twin-a", "twin-b", "only-two"]);
    const { thrown } = await startupCheckOn([a, b]);
    const message = thrown instanceof Error ? thrown.message : "";
    expect(message).toContain("bot twin-a is in two journals");
    expect(message).toContain("bot twin-b is in two journals");
    expect(message.match(/Bot ids must be unique/g)).toHaveLength(1);
  });

  it("merges every journal's audit chain on the audit page, and verifies each chain on its own with npm run audit -- verify", async () => {
    const { files, set } = fleet();
    const accounts = path.join(tempDir("fleet-accounts"), "accounts.db");
    const key = resolveAuditKey({ configured: undefined, accountsDbPath: accounts, log: () => {} });
    const entry = (file: string, at: string, target: string) => {
      const db = consoleWriter(file);
      db.transaction(() => appendAudit(db, { at, actor: "operator:ana", action: "halt_bot", target, outcome: "applied", detail: {} }, key)).immediate();
      db.close();
    };
    entry(files.alpha, "2026-12-01T10:00:00.000Z", "alpha-1");
    entry(files.beta, "2026-12-01T10:01:00.000Z", "beta-1");
    entry(files.alpha, "2026-12-01T10:02:00.000Z", "alpha-2");

    const page = await readAudit({ names: true, actor: null, action: null, before: null, source: null, set });
    if (!page.ok) throw new Error(page.error.message);
    expect(page.data.entries.map((e) => `${e.source}#${e.id} ${e.target}`)).toEqual(["alpha#2 alpha-2", "beta#1 beta-1", "alpha#1 alpha-1"]);
    expect("chains" in page.data && page.data.chains!.map((c) => [c.name, c.head?.entries])).toEqual([
      ["alpha", 2],
      ["beta", 1],
      ["gamma", 0],
    ]);
    const onlyBeta = await readAudit({ names: true, actor: null, action: null, before: null, source: "beta", set });
    expect(onlyBeta.ok && onlyBeta.data.entries.map((e) => e.target)).toEqual(["beta-1"]);

    const verify = () => {
      const env: NodeJS.ProcessEnv = { ...process.env, DRIFTWATCH_ACCOUNTS_DB: accounts, DRIFTWATCH_JOURNAL: [files.alpha, files.beta, files.gamma].join(",") };
      for (const k of Object.keys(env)) if (k.startsWith("DRIFTWATCH_") && k !== "DRIFTWATCH_ACCOUNTS_DB" && k !== "DRIFTWATCH_JOURNAL") delete env[k];
      const r = spawnSync(path.join(repoRoot, "node_modules/.bin/tsx"), ["scripts/audit.ts", "verify"], { cwd: repoRoot, encoding: "utf8", env });
      return { code: r.status, out: `${r.stdout}${r.stderr}` };
    };
    const ok = verify();
    expect(ok.code, ok.out).toBe(0);
    expect(ok.out).toMatch(/source driftwatch-alpha-\w+-journal: audit log of .*: 2 entries, chain verified/);
    expect(ok.out).toMatch(/source driftwatch-beta-\w+-journal: audit log of .*: 1 entries, chain verified/);
    expect(ok.out).toMatch(/source driftwatch-gamma-\w+-journal: audit log of .*: 0 entries, chain verified/);

    // One chain altered: that chain is named broken, the others still verify.
    sqliteCli(files.beta, `DROP TRIGGER IF EXISTS audit_log_no_update; UPDATE audit_log SET target = 'alpha-1' WHERE id = 1;`);
    const broken = verify();
    expect(broken.code).toBe(1);
    expect(broken.out).toMatch(/source driftwatch-beta-\w+-journal: audit log of .*: chain broken at entry #1/);
    expect(broken.out).toMatch(/source driftwatch-alpha-\w+-journal: audit log of .*: 2 entries, chain verified/);
  });

  it("merges every journal's incidents: the list, the window minute by minute, each story by its journal's name, the export; a journal that cannot be read is named, never a quiet hour", async () => {
    const { files, set } = fleet();
    // Each journal numbers its own trips: alpha's and beta's first trips are both #1.
    const t = (min: number, s = 0) => new Date(Date.UTC(2026, 10, 30, 3, min, s)).toISOString();
    const trip = (file: string, bot: string, at: string, reason: string) =>
      sqliteCli(
        file,
        `INSERT INTO reconciliations (bot_id, at, outcome) VALUES ('${bot}', '${at}', 'drift');
         INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('${bot}', '${at}', 'trip', '${reason}', 'bot', last_insert_rowid());`,
      );
    trip(files.alpha, "alpha-1", t(10), "position in ETH the bot never opened");
    trip(files.beta, "beta-1", t(12), "drift on SOL");
    sqliteCli(files.beta, `INSERT INTO breaker_events (bot_id, at, kind, reason, actor) VALUES ('beta-1', '${t(20)}', 'clear', 'looked at', 'operator:ana')`);
    trip(files.gamma, "gamma-1", t(15), "drift on BTC");

    const list = await readIncidentList({ names: true, bot: null, set });
    if (!list.ok) throw new Error(list.error.message);
    expect(list.data.items.map((i) => `${i.journal}-${i.id}:${i.botId}:${i.status}`)).toEqual([
      "gamma-1:gamma-1:open",
      "beta-1:beta-1:cleared",
      "alpha-1:alpha-1:open",
    ]);
    expect(list.data.bots).toEqual(["alpha-1", "alpha-2", "beta-1", "gamma-1"]);
    // One bot's list reads its journal alone.
    const one = await readIncidentList({ names: true, bot: "beta-1", set });
    expect(one.ok && one.data.items.map((i) => `${i.journal}-${i.id}`)).toEqual(["beta-1"]);
    expect(one.ok && one.data.bots).toEqual(["alpha-1", "alpha-2", "beta-1", "gamma-1"]);

    // The window: every journal's events in time order, each named after its journal, ids unique.
    const hour = { from: t(0), to: t(59), filters: { bot: null, kinds: [...INCIDENT_KINDS] }, names: true, set };
    const window = await readIncidentWindow(hour);
    if (!window.ok) throw new Error(window.error.message);
    const events = window.data.timeline.minutes.flatMap((m) => m.shown);
    expect(events.map((e) => `${e.at.slice(14, 16)} ${e.journal} ${e.source}:${e.kind}`)).toEqual([
      "10 alpha reconciliation:drift",
      "10 alpha breaker:trip",
      "12 beta reconciliation:drift",
      "12 beta breaker:trip",
      "15 gamma reconciliation:drift",
      "15 gamma breaker:trip",
      "20 beta breaker:clear",
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(window.data.timeline.tallies.trips).toBe(3);
    // The default window spans the journals: the hour up to the newest thing any of them holds.
    const latest = await readIncidentWindow({ ...hour, from: null, to: null });
    expect(latest.ok && latest.data.window).toMatchObject({ to: t(21), defaulted: "latest_activity" });

    // A story is asked for by its journal's name; a bare number several journals have is a choice, not a guess.
    const story = await readIncidentStory({ names: true, ref: { journal: "beta", trip: 1 }, set });
    expect(story.ok && story.data.view).toMatchObject({ journal: "beta", story: { botId: "beta-1", status: "cleared" } });
    expect(story.ok && story.data.view!.timeline.rows.length).toBeGreaterThan(0);
    expect(story.ok && story.data.view!.timeline.rows.every((r) => r.event.journal === "beta")).toBe(true);
    // Its post-mortem names the journal as its address does.
    const markdown = incidentPostmortem(story.ok ? story.data.view! : (null as never));
    expect(markdown).toMatch(/^# Incident beta-1: beta-1 halted, drift on SOL$/m);
    expect(markdown).toContain("- **Journal:** beta");
    expect(postmortemFilename({ id: 1, botId: "beta-1", startedAt: "2026-12-03T05:31:42.000Z" }, "beta")).toBe(
      "driftwatch-incident-2026-12-03T0531Z_beta-1_beta-1.md",
    );
    const bare = await readIncidentStory({ names: true, ref: { journal: null, trip: 1 }, set });
    expect(bare.ok && bare.data.choices.map((c) => `${c.journal}:${c.botId}`)).toEqual(["alpha:alpha-1", "beta:beta-1", "gamma:gamma-1"]);
    const none = await readIncidentStory({ names: true, ref: { journal: "delta", trip: 1 }, set });
    expect(none.ok && none.data).toEqual({ view: null, choices: [], unread: [], clears: [] });
    // A clear's number is no incident: the page is pointed at the incident it ended, in its journal.
    const clearOf = { journal: "beta", clearId: 2, botId: "beta-1", clearedAt: t(20), tripId: 1 };
    const clear = await readIncidentStory({ names: true, ref: { journal: "beta", trip: 2 }, set });
    expect(clear.ok && clear.data).toEqual({ view: null, choices: [], unread: [], clears: [clearOf] });
    const bareClear = await readIncidentStory({ names: true, ref: { journal: null, trip: 2 }, set });
    expect(bareClear.ok && bareClear.data.clears).toEqual([clearOf]);
    // The breakers page's clear links to that incident by its journal's name too.
    const betaBoard = await readBreakerBoard({ names: true, bot: null, before: null, set });
    const betaClear = betaBoard.ok ? betaBoard.data.bots.find((b) => b.botId === "beta-1")!.events.find((e) => e.kind === "clear") : undefined;
    expect(betaClear).toMatchObject({ id: 2, tripId: 1, storyHref: "/incidents/beta-1" });
    const noClear = await readIncidentStory({ names: true, ref: { journal: "alpha", trip: 2 }, set });
    expect(noClear.ok && noClear.data).toEqual({ view: null, choices: [], unread: [], clears: [] });

    // The export merges them as the page does.
    const exported = await readIncidentExport(hour);
    if (!exported.ok) throw new Error(exported.error.message);
    expect([...exported.data.timeline.events()].map((e) => e.id)).toEqual(events.map((e) => e.id));

    // A journal moved away: its banner on every incident screen, the others still read; a story in it says why it cannot be read.
    fs.renameSync(files.gamma, `${files.gamma}.away`);
    const without = await readIncidentWindow(hour);
    if (!without.ok) throw new Error(without.error.message);
    expect(without.data.timeline.sources!.filter((s) => !s.ok).map((s) => `${s.name}:${s.problem!.code}`)).toEqual(["gamma:gone"]);
    expect(without.data.timeline.minutes.flatMap((m) => m.shown).some((e) => e.journal === "gamma")).toBe(false);
    const listWithout = await readIncidentList({ names: true, bot: null, set });
    expect(listWithout.ok && listWithout.data.sources!.filter((s) => !s.ok).map((s) => s.name)).toEqual(["gamma"]);
    // A bare number: the journals that have it, and the one that cannot be read and may have it too.
    const bareWithout = await readIncidentStory({ names: true, ref: { journal: null, trip: 1 }, set });
    expect(bareWithout.ok && bareWithout.data.choices.map((c) => c.journal)).toEqual(["alpha", "beta"]);
    expect(bareWithout.ok && bareWithout.data.unread.map((u) => u.name)).toEqual(["gamma"]);
    const gammaStory = await readIncidentStory({ names: true, ref: { journal: "gamma", trip: 1 }, set });
    expect(gammaStory).toMatchObject({ ok: false, source: "gamma", error: { code: "gone" } });
    const exportWithout = await readIncidentExport(hour);
    expect(exportWithout.ok && exportWithout.data.timeline.sources!.find((s) => !s.ok)?.name).toBe("gamma");
    // Back: read again, by itself.
    fs.renameSync(`${files.gamma}.away`, files.gamma);
    const back = await readIncidentWindow(hour);
    expect(back.ok && back.data.timeline.sources!.every((s) => s.ok)).toBe(true);
  });
});

describe.skipIf(!postgresAvailable)("several journals, one of them PostgreSQL, at start", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres({ label: "several-journals" });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("stops the console at start when a SQLite journal and a PostgreSQL one hold the same bot id, naming both", async () => {
    const file = journalWith("one", ["shared-bot"]);
    const { pool, url } = await freshPgJournal(server, "clash");
    const at = new Date().toISOString();
    await pool.query(
      `INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES ('shared-bot', 'sim', 'p0', $1), ('pg-only', 'sim', 'p1', $1)`,
      [at],
    );
    await pool.end();
    const { thrown, errors } = await startupCheckOn([file, url]);
    const { BotClashError } = await import("@/lib/db/startup-check");
    expect(thrown).toBeInstanceOf(BotClashError);
    expect(errors.at(-1)).toMatch(/bot shared-bot is in two journals: source \S+ \(.+\) and source \S+ \(.+\)\. Bot ids must be unique/);
    expect(errors.at(-1)).toContain(`(${file})`);
    expect(errors.at(-1)).toContain(url);
    expect(errors.at(-1)).not.toContain("pg-only");
  });
});
