/**
 * An acknowledgement silences the page, against a real Alertmanager (Debian's, started per test
 * with a webhook receiver served here): the silence is made for the bot and symbol until the
 * acknowledgement expires, and the audit names it; the console's sweep ends it once the drift grows;
 * a clear ends the bot's silences; an Alertmanager that is down or refuses never blocks the action,
 * and the failure is audited and told. And the point of it all: a silenced drift alert stops
 * notifying while another keeps paging, and pages again once the acknowledgement stops covering.
 */
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { acknowledgeDriftSpec } from "@/lib/actions/acknowledge-drift";
import { clearHaltSpec, type ClearDeps } from "@/lib/actions/clear-halt";
import { AlertmanagerClient } from "@/lib/alerting/alertmanager";
import { sweepSilences, type SilenceDeps } from "@/lib/alerting/silences";
import { verifyAuditLog } from "@/lib/audit/log";
import { consoleAuditKey } from "@/lib/audit/key";
import { openAccountsDb, type AccountsDb } from "@/lib/db/accounts-file";
import { freePort } from "@/tools/lib/console-server";
import { act, ana, auditRows, consoleWriter, vic } from "../helpers/actions";
import { eventually, startAlertmanager, type TestAlertmanager } from "../helpers/alertmanager";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { repoRoot, tempDir } from "../helpers/journal";
import path from "node:path";

const symbols = SYMBOLS.map((s) => s.symbol);
const TTL = 30 * 60_000;
const clearDeps: ClearDeps = { heartbeatStaleMs: 60_000, doubtfulGraceMs: 30_000, twoPersonClear: false, twoPersonWindowMs: 600_000 };
const DRIFT_ALERTS = "DriftwatchUnknownPosition|DriftwatchSizeDrift";

let cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

async function alertmanager(): Promise<TestAlertmanager> {
  const am = await startAlertmanager();
  cleanup.push(() => am.stop());
  return am;
}

function accountsFile(): { accounts: AccountsDb; sqlite: Database.Database } {
  const { db, sqlite } = openAccountsDb(path.join(tempDir("accounts"), "accounts.db"), { migrationsDir: path.join(repoRoot, "drizzle/accounts") });
  cleanup.push(() => {
    sqlite.close();
  });
  return { accounts: db, sqlite };
}

/**
 * bot-a halted by a size drift on AAPL (book +500, exchange +300), on a simulated clock that starts
 * at the wall clock, since Alertmanager refuses a silence that ends in the past.
 */
async function driftingBot() {
  const bot = botOnSim({ startAt: new Date() });
  await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  bot.sim.setPositionBehindBot("AAPL", 300);
  await bot.writer.reconcile({ symbols });
  const db = consoleWriter(bot.file);
  const reader = new Database(bot.file, { readonly: true });
  cleanup.push(() => {
    reader.close();
    db.close();
    bot.close();
  });
  const since = db.prepare(`SELECT drift_since FROM latest_positions WHERE symbol = 'AAPL'`).pluck().get() as string;
  const input = {
    botId: "bot-a",
    symbol: "AAPL",
    drift: "size_drift",
    ours: "500",
    theirs: "300",
    driftSince: since,
    note: "desk closed 200 by hand, checked",
  };
  return { bot, db, reader, input };
}

function silenceDeps(url: string, accounts: AccountsDb, journalFile: string): SilenceDeps {
  return { client: new AlertmanagerClient(url), accounts: () => accounts, journalFile, publicUrl: "https://driftwatch.example" };
}

const detailOf = (row: { detail: string }) => JSON.parse(row.detail) as Record<string, unknown>;

describe("an acknowledgement silences the page", () => {
  it("makes a silence for the bot and symbol's drift alerts until the acknowledgement expires, by the operator, and the audit names its id", async () => {
    const am = await alertmanager();
    const { accounts, sqlite } = accountsFile();
    const { bot, db, input } = await driftingBot();
    const r = await act(db, acknowledgeDriftSpec({ ackTtlMs: TTL, silences: silenceDeps(am.url, accounts, bot.file) }), ana, input, bot.sim.now());

    const expiresAt = new Date(bot.sim.now().getTime() + TTL).toISOString();
    expect(r).toEqual({ ok: true, data: { expiresAt, silence: { ok: true, silenceId: expect.any(String), endsAt: expiresAt } } });
    const silenceId = r.ok && r.data.silence?.ok ? r.data.silence.silenceId : "";
    const [silence, ...others] = await am.silences();
    expect(others).toEqual([]);
    expect(silence).toMatchObject({ id: silenceId, status: { state: "active" }, createdBy: "ana" });
    expect(Date.parse(silence!.endsAt)).toBe(Date.parse(expiresAt));
    expect(
      silence!.matchers.map(({ name, value, isRegex, isEqual }) => ({ name, value, isRegex, isEqual })).sort((a, b) => a.name.localeCompare(b.name)),
    ).toEqual([
      { name: "alertname", value: DRIFT_ALERTS, isRegex: true, isEqual: true },
      { name: "bot", value: "bot-a", isRegex: false, isEqual: true },
      { name: "symbol", value: "AAPL", isRegex: false, isEqual: true },
    ]);
    expect(silence!.comment).toContain("desk closed 200 by hand, checked");
    expect(silence!.comment).toContain("https://driftwatch.example/bots/bot-a");

    const ackId = bot.rows<{ id: number }>(`SELECT id FROM drift_acknowledgements`)[0]!.id;
    const audit = auditRows(bot.file);
    expect(audit.map((a) => [a.action, a.outcome, a.code, a.actor])).toEqual([
      ["acknowledge_drift", "applied", null, "operator:ana"],
      ["alert_silence", "applied", null, "operator:ana"],
    ]);
    expect(detailOf(audit[0]!)).toMatchObject({ acknowledgementId: ackId });
    expect(detailOf(audit[1]!)).toEqual({ acknowledgementId: ackId, silenceId, expiresAt });
    expect(verifyAuditLog(db, consoleAuditKey())).toMatchObject({ ok: true });
    expect(sqlite.prepare(`SELECT journal_file, acknowledgement_id, bot_id, symbol, silence_id, ends_at, expired_at FROM alert_silences`).all()).toEqual([
      { journal_file: bot.file, acknowledgement_id: ackId, bot_id: "bot-a", symbol: "AAPL", silence_id: silenceId, ends_at: expiresAt, expired_at: null },
    ]);
  });

  it("the console's sweep leaves the silence while the acknowledgement covers, and expires it once the drift grows", async () => {
    const am = await alertmanager();
    const { accounts, sqlite } = accountsFile();
    const { bot, db, reader, input } = await driftingBot();
    const r = await act(db, acknowledgeDriftSpec({ ackTtlMs: TTL, silences: silenceDeps(am.url, accounts, bot.file) }), ana, input, bot.sim.now());
    const silenceId = r.ok && r.data.silence?.ok ? r.data.silence.silenceId : "";
    const sweep = () => sweepSilences({ client: new AlertmanagerClient(am.url), accounts, journalFile: bot.file, journal: reader, now: bot.sim.now() });

    // The bot's next cycle shows the same drift: still covered.
    bot.sim.advance(15_000);
    await bot.writer.reconcile({ symbols });
    expect(await sweep()).toEqual([]);
    expect((await am.silences()).map((s) => [s.id, s.status.state])).toEqual([[silenceId, "active"]]);

    // Then the exchange shows +100: the drift grew from 200 to 400.
    bot.sim.setPositionBehindBot("AAPL", 100);
    bot.sim.advance(15_000);
    await bot.writer.reconcile({ symbols });
    expect(await sweep()).toEqual([{ silenceId, why: "the drift grew", ok: true }]);
    expect((await am.silences()).map((s) => [s.id, s.status.state])).toEqual([[silenceId, "expired"]]);
    expect(sqlite.prepare(`SELECT expired_why, last_error FROM alert_silences`).all()).toEqual([{ expired_why: "the drift grew", last_error: null }]);
    expect(await sweep()).toEqual([]);
  });

  it("clearing the halt expires the silences made for that bot's acknowledgements, and audits them", async () => {
    const am = await alertmanager();
    const { accounts, sqlite } = accountsFile();
    const { bot, db, input } = await driftingBot();
    const deps = silenceDeps(am.url, accounts, bot.file);
    const r = await act(db, acknowledgeDriftSpec({ ackTtlMs: TTL, silences: deps }), ana, input, bot.sim.now());
    const silenceId = r.ok && r.data.silence?.ok ? r.data.silence.silenceId : "";
    bot.sim.setPositionBehindBot("AAPL", 500);
    bot.sim.advance(15_000);
    await bot.writer.reconcile({ symbols });
    bot.writer.heartbeat();
    const breakerVersion = db.prepare(`SELECT version FROM breakers WHERE bot_id = 'bot-a'`).pluck().get() as number;

    const cleared = await act(
      db,
      clearHaltSpec({ ...clearDeps, silences: deps }),
      ana,
      { botId: "bot-a", breakerVersion: String(breakerVersion), reason: "drift explained and repaired", confirmBotId: "bot-a" },
      bot.sim.now(),
    );
    expect(cleared).toEqual({ ok: true, data: { cleared: true, silences: { expired: [silenceId], failed: [] } } });
    expect((await am.silences()).map((s) => [s.id, s.status.state])).toEqual([[silenceId, "expired"]]);
    const audit = auditRows(bot.file);
    expect(audit.slice(-2).map((a) => [a.action, a.outcome, a.target])).toEqual([
      ["clear_halt", "applied", "bot-a"],
      ["alert_silence", "applied", "bot-a"],
    ]);
    expect(detailOf(audit.at(-1)!)).toEqual({ expiredSilenceIds: [silenceId], reason: "halt cleared" });
    expect(sqlite.prepare(`SELECT expired_why FROM alert_silences`).all()).toEqual([{ expired_why: "halt cleared" }]);
  });

  it("a clear while Alertmanager is down still clears, audits and tells the failure, and the console expires the silence once it is back", async () => {
    const am = await alertmanager();
    const { accounts, sqlite } = accountsFile();
    const { bot, db, reader, input } = await driftingBot();
    const deps = silenceDeps(am.url, accounts, bot.file);
    const r = await act(db, acknowledgeDriftSpec({ ackTtlMs: TTL, silences: deps }), ana, input, bot.sim.now());
    const silenceId = r.ok && r.data.silence?.ok ? r.data.silence.silenceId : "";
    bot.sim.setPositionBehindBot("AAPL", 500);
    bot.sim.advance(15_000);
    await bot.writer.reconcile({ symbols });
    bot.writer.heartbeat();
    const breakerVersion = db.prepare(`SELECT version FROM breakers WHERE bot_id = 'bot-a'`).pluck().get() as number;
    await am.down();

    const cleared = await act(
      db,
      clearHaltSpec({ ...clearDeps, silences: deps }),
      ana,
      { botId: "bot-a", breakerVersion: String(breakerVersion), reason: "drift explained and repaired", confirmBotId: "bot-a" },
      bot.sim.now(),
    );
    expect(cleared).toEqual({
      ok: true,
      data: {
        cleared: true,
        silences: { expired: [], failed: [{ silenceId, code: "unreachable", message: expect.stringContaining("could not be reached") }] },
      },
    });
    expect(bot.writer.breaker()).toMatchObject({ halted: false });
    const audit = auditRows(bot.file);
    expect(audit.slice(-2).map((a) => [a.action, a.outcome, a.code])).toEqual([
      ["clear_halt", "applied", null],
      ["alert_silence", "refused", "unreachable"],
    ]);
    expect(detailOf(audit.at(-1)!)).toMatchObject({ silenceIds: [silenceId], expiredSilenceIds: [] });
    expect(sqlite.prepare(`SELECT expired_at, expired_why, last_error IS NOT NULL AS failed FROM alert_silences`).all()).toEqual([
      { expired_at: null, expired_why: "halt cleared", failed: 1 },
    ]);

    await am.up();
    const sweep = await sweepSilences({ client: new AlertmanagerClient(am.url), accounts, journalFile: bot.file, journal: reader, now: bot.sim.now() });
    expect(sweep).toEqual([{ silenceId, why: "halt cleared", ok: true }]);
    expect((await am.silences()).map((s) => [s.id, s.status.state])).toEqual([[silenceId, "expired"]]);
  });

  it("when Alertmanager cannot be reached, the acknowledgement still applies, and the failure is audited and told", async () => {
    const { accounts, sqlite } = accountsFile();
    const { bot, db, input } = await driftingBot();
    const down = `http://127.0.0.1:${await freePort()}`;
    const r = await act(db, acknowledgeDriftSpec({ ackTtlMs: TTL, silences: silenceDeps(down, accounts, bot.file) }), ana, input, bot.sim.now());

    expect(r).toEqual({
      ok: true,
      data: {
        expiresAt: expect.any(String),
        silence: {
          ok: false,
          code: "unreachable",
          message: expect.stringMatching(new RegExp(`^Alertmanager at ${down} could not be reached \\(ECONNREFUSED\\)`)),
        },
      },
    });
    expect(bot.rows(`SELECT bot_id, symbol, acknowledged_by FROM drift_acknowledgements`)).toEqual([
      { bot_id: "bot-a", symbol: "AAPL", acknowledged_by: "operator:ana" },
    ]);
    const audit = auditRows(bot.file);
    expect(audit.map((a) => [a.action, a.outcome, a.code])).toEqual([
      ["acknowledge_drift", "applied", null],
      ["alert_silence", "refused", "unreachable"],
    ]);
    expect(detailOf(audit[1]!)).toMatchObject({ message: expect.stringContaining("could not be reached") });
    expect(sqlite.prepare(`SELECT count(*) AS n FROM alert_silences`).get()).toEqual({ n: 0 });
  });

  it("when Alertmanager refuses the silence, the acknowledgement still applies and the refusal names its status and answer", async () => {
    const am = await alertmanager();
    const { accounts } = accountsFile();
    // A bot whose clock is months behind: the acknowledgement ends in Alertmanager's past.
    const bot = botOnSim();
    await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
    bot.sim.setPositionBehindBot("AAPL", 300);
    await bot.writer.reconcile({ symbols });
    const db = consoleWriter(bot.file);
    cleanup.push(() => {
      db.close();
      bot.close();
    });
    const since = db.prepare(`SELECT drift_since FROM latest_positions WHERE symbol = 'AAPL'`).pluck().get() as string;
    const input = { botId: "bot-a", symbol: "AAPL", drift: "size_drift", ours: "500", theirs: "300", driftSince: since, note: "desk closed 200 by hand" };
    const r = await act(db, acknowledgeDriftSpec({ ackTtlMs: TTL, silences: silenceDeps(am.url, accounts, bot.file) }), ana, input, bot.sim.now());

    expect(r).toMatchObject({
      ok: true,
      data: { silence: { ok: false, code: "refused", message: expect.stringMatching(/refused POST \/api\/v2\/silences with 400: .+/) } },
    });
    expect(auditRows(bot.file).map((a) => [a.action, a.outcome, a.code])).toEqual([
      ["acknowledge_drift", "applied", null],
      ["alert_silence", "refused", "refused"],
    ]);
    expect(await am.silences()).toEqual([]);
  });

  it("expiring a silence twice, or one Alertmanager does not know (its data lost), counts as done", async () => {
    const am = await alertmanager();
    const client = new AlertmanagerClient(am.url);
    const id = await client.createSilence({
      matchers: [{ name: "bot", value: "bot-a", isRegex: false, isEqual: true }],
      startsAt: new Date().toISOString(),
      endsAt: new Date(Date.now() + 3600_000).toISOString(),
      createdBy: "ana",
      comment: "test",
    });
    await client.expireSilence(id);
    await client.expireSilence(id);
    await client.expireSilence("00000000-0000-0000-0000-000000000000");
    expect((await client.listSilences(["bot=bot-a"])).map((s) => [s.id, s.status.state])).toEqual([[id, "expired"]]);
  });

  it("a viewer's acknowledgement makes no silence and writes nothing", async () => {
    const am = await alertmanager();
    const { accounts, sqlite } = accountsFile();
    const { bot, db, input } = await driftingBot();
    const r = await act(db, acknowledgeDriftSpec({ ackTtlMs: TTL, silences: silenceDeps(am.url, accounts, bot.file) }), vic, input, bot.sim.now());
    expect(r).toMatchObject({ ok: false, code: "unauthorized" });
    expect(auditRows(bot.file)).toEqual([]);
    expect(await am.silences()).toEqual([]);
    expect(sqlite.prepare(`SELECT count(*) AS n FROM alert_silences`).get()).toEqual({ n: 0 });
  });

  it("the silenced drift alert stops notifying while another keeps paging, and pages again once the drift grows", async () => {
    const am = await alertmanager();
    const { accounts } = accountsFile();
    const { bot, db, reader, input } = await driftingBot();
    const aapl = { alertname: "DriftwatchSizeDrift", bot: "bot-a", symbol: "AAPL" };
    const control = { alertname: "DriftwatchSizeDrift", bot: "bot-a", symbol: "BTCUSDT" };
    const fire = () => Promise.all([am.postAlert(aapl), am.postAlert(control)]);
    await fire();
    await eventually("the AAPL drift alert's first notification", () => am.deliveriesOf(aapl).length > 0);

    const r = await act(db, acknowledgeDriftSpec({ ackTtlMs: TTL, silences: silenceDeps(am.url, accounts, bot.file) }), ana, input, bot.sim.now());
    const silenceId = r.ok && r.data.silence?.ok ? r.data.silence.silenceId : "";
    expect(silenceId).not.toBe("");
    const suppressed = await eventually("the AAPL alert suppressed", async () =>
      (await am.alerts()).find((a) => a.labels.symbol === "AAPL" && a.status.state === "suppressed"),
    );
    expect(suppressed.status.silencedBy).toEqual([silenceId]);
    expect((await am.alerts()).find((a) => a.labels.symbol === "BTCUSDT")?.status.state).toBe("active");

    // Let any notification already under way finish, then count: the control pages three more times, AAPL not once.
    const settled = am.deliveriesOf(control).length;
    await eventually("one more control notification", () => am.deliveriesOf(control).length > settled);
    const aaplBefore = am.deliveriesOf(aapl).length;
    const controlBefore = am.deliveriesOf(control).length;
    await eventually("three more control notifications", () => am.deliveriesOf(control).length >= controlBefore + 3);
    expect(am.deliveriesOf(aapl).length).toBe(aaplBefore);

    // The drift grows: the sweep ends the silence and the page comes back.
    bot.sim.setPositionBehindBot("AAPL", 100);
    bot.sim.advance(15_000);
    await bot.writer.reconcile({ symbols });
    expect(await sweepSilences({ client: new AlertmanagerClient(am.url), accounts, journalFile: bot.file, journal: reader, now: bot.sim.now() })).toEqual([
      { silenceId, why: "the drift grew", ok: true },
    ]);
    await eventually("AAPL notified again", () => am.deliveriesOf(aapl).length > aaplBefore);
    expect((await am.alerts()).find((a) => a.labels.symbol === "AAPL")?.status.state).toBe("active");
  });
});
