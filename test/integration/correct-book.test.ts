/**
 * The book correction through the one guard, on a real journal written by a real JournalWriter:
 * applied, it writes the correction, the acknowledgement of the drift it judges and the audit
 * entry in one transaction, and the bot's next cycle is clean, so the halt can be cleared; every
 * refusal (stale sizes, in sync, an unsettled order, a correction not yet counted, bad input, no
 * operator) writes nothing but its audit entry; two processes correcting at once count it once.
 */
import { spawn } from "node:child_process";
import fc from "fast-check";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clearHaltSpec } from "@/lib/actions/clear-halt";
import { correctBookSpec } from "@/lib/actions/correct-book";
import { verifyAuditLog } from "@/lib/audit/log";
import { consoleAuditKey } from "@/lib/audit/key";
import { getClearFacts } from "@/lib/queries/clear-checklist";
import { getBookCorrections } from "@/lib/queries/book-corrections";
import { act, ana, auditCount, auditRows, ben, consoleWriter, refusalLines, snapshotExceptAudit, vic } from "../helpers/actions";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { repoRoot } from "../helpers/journal";

const symbols = SYMBOLS.map((s) => s.symbol);
const spec = correctBookSpec({ ackTtlMs: 600_000 });
const clearDeps = { heartbeatStaleMs: 60_000, doubtfulGraceMs: 30_000, twoPersonClear: false, twoPersonWindowMs: 600_000 };
let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

/** bot-a holds 500 AAPL; someone closes 200 by hand; the next cycle drifts (+500 vs +300) and trips. */
async function sizeDrift() {
  const bot = botOnSim();
  await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
  bot.sim.setPositionBehindBot("AAPL", 300);
  bot.sim.advance(10_000);
  const cycle = await bot.writer.reconcile({ symbols });
  const db = consoleWriter(bot.file);
  cleanup.push(() => db.close(), bot.close);
  const seen = { botId: "bot-a", symbol: "AAPL", reconciliationId: String(cycle.reconciliationId), ours: "500", theirs: "300" };
  return { bot, db, seen, adopt: { ...seen, kind: "adopt_exchange", note: "desk closed 200 by hand on the venue" } };
}

const nextCycle = async (bot: ReturnType<typeof botOnSim>) => {
  bot.sim.advance(10_000);
  return bot.writer.reconcile({ symbols });
};

/** Refused with `code`, nothing but one audit entry written, and that entry says refused. */
function expectOnlyAudited(file: string, before: Record<string, unknown[]>, audits: number, result: { ok: boolean; code?: string }, code: string) {
  expect(result).toMatchObject({ ok: false, code });
  expect(snapshotExceptAudit(file)).toEqual(before);
  expect(auditCount(file)).toBe(audits + 1);
  expect(auditRows(file).at(-1)).toMatchObject({ action: "correct_book", outcome: "refused", code, target: expect.stringContaining("bot-a") });
}

describe("correct the bot's book", () => {
  it("adopting the exchange's size writes the correction, acknowledges the drift and audits it; the next cycle is clean and the halt clears", async () => {
    const { bot, db, adopt } = await sizeDrift();
    expect(bot.writer.breaker()).toMatchObject({ halted: true, reason: "size drift AAPL: book +500 vs exchange +300" });
    const clearForm = () => ({
      botId: "bot-a",
      breakerVersion: String(db.prepare(`SELECT version FROM breakers WHERE bot_id = 'bot-a'`).pluck().get()),
      reason: "book corrected to the venue's 300",
      confirmBotId: "bot-a",
    });
    // Before the correction, the clear's refusal says what would fix it.
    const early = await act(db, clearHaltSpec(clearDeps), ana, clearForm(), bot.sim.now());
    expect(early.ok ? [] : early.reasons).toContainEqual(expect.stringContaining("AAPL book +500 vs exchange +300. Correct the book below"));
    const r = await act(db, spec, ana, adopt, bot.sim.now());
    expect(r).toEqual({
      ok: true,
      data: { correctionId: 1, kind: "adopt_exchange", before: 500, after: 300, delta: -200, correctedAt: bot.sim.now().toISOString() },
    });
    expect(bot.rows(`SELECT bot_id, symbol, kind, ours, theirs, reconciliation_id, delta, note, corrected_by FROM book_corrections`)).toEqual([
      {
        bot_id: "bot-a",
        symbol: "AAPL",
        kind: "adopt_exchange",
        ours: 500,
        theirs: 300,
        reconciliation_id: Number(adopt.reconciliationId),
        delta: -200,
        note: adopt.note,
        corrected_by: "operator:ana",
      },
    ]);
    // The correction is the operator's judgement of that drift: the checklist counts it acknowledged.
    expect(bot.rows(`SELECT symbol, drift, ours, theirs, reconciliation_id, note, acknowledged_by FROM drift_acknowledgements`)).toEqual([
      {
        symbol: "AAPL",
        drift: "size_drift",
        ours: 500,
        theirs: 300,
        reconciliation_id: Number(adopt.reconciliationId),
        note: adopt.note,
        acknowledged_by: "operator:ana",
      },
    ]);
    expect(getClearFacts({ db, botId: "bot-a", now: bot.sim.now(), ...clearDeps }).unacknowledgedDrifts).toEqual([]);
    const audit = auditRows(bot.file).at(-1)!;
    expect(audit).toMatchObject({ actor: "operator:ana", action: "correct_book", target: "bot-a/AAPL", outcome: "applied" });
    expect(JSON.parse(audit.detail)).toMatchObject({
      kind: "adopt_exchange",
      ours: 500,
      theirs: 300,
      delta: -200,
      book: 300,
      reconciliationId: Number(adopt.reconciliationId),
      note: adopt.note,
    });
    expect((await getBookCorrections({ db, botId: "bot-a" })).corrections[0]).toMatchObject({ after: 300, status: { state: "pending" } });

    const after = await nextCycle(bot);
    expect(after.outcome).toBe("clean");
    expect(bot.writer.book().get("AAPL")).toBe(300);
    expect(await getBookCorrections({ db, botId: "bot-a" })).toMatchObject({
      drifting: [],
      corrections: [{ status: { state: "in_sync", since: bot.sim.now().toISOString() } }],
    });
    bot.writer.heartbeat();
    const clear = await act(db, clearHaltSpec(clearDeps), ana, clearForm(), bot.sim.now());
    expect(clear).toEqual({ ok: true, data: { cleared: true } });
    const entry = await bot.writer.sendOnce({ strategy: "trend", symbol: "BTCUSDT", side: "buy", qty: 0.01, bar: "2026-08-10T15:32:00Z" });
    expect(entry.order.state).toBe("filled");
    expect(verifyAuditLog(db, consoleAuditKey()).ok).toBe(true);
  });

  it("the bot page's book view: the drifting line offers no second correction until the bot counted the first, then says whether the drift ended", async () => {
    const { bot, db, adopt } = await sizeDrift();
    expect(await getBookCorrections({ db, botId: "bot-a" })).toEqual({
      drifting: [
        {
          symbol: "AAPL",
          drift: "size_drift",
          ours: 500,
          theirs: 300,
          qtyStep: 1,
          reconciliationId: Number(adopt.reconciliationId),
          at: bot.sim.now().toISOString(),
          pending: null,
        },
      ],
      compared: { id: Number(adopt.reconciliationId), at: bot.sim.now().toISOString() },
      latest: { id: Number(adopt.reconciliationId), at: bot.sim.now().toISOString(), outcome: "drift" },
      corrections: [],
    });
    await act(db, spec, ana, adopt, bot.sim.now());
    expect((await getBookCorrections({ db, botId: "bot-a" })).drifting[0]!.pending).toMatchObject({ correctedBy: "operator:ana", ours: 500, delta: -200 });
    // Meanwhile someone closes another 100 on the venue: the correction is counted, the symbol still drifts.
    bot.sim.setPositionBehindBot("AAPL", 200);
    await nextCycle(bot);
    await nextCycle(bot);
    const view = await getBookCorrections({ db, botId: "bot-a" });
    expect(view.drifting).toEqual([expect.objectContaining({ symbol: "AAPL", ours: 300, theirs: 200, pending: null })]);
    expect(view.corrections).toEqual([expect.objectContaining({ symbol: "AAPL", after: 300, status: { state: "still_drifting" } })]);
  });

  it("the book view says when the bot last compared the books, and when its latest cycle did not compare them", async () => {
    const bot = botOnSim();
    const db = consoleWriter(bot.file);
    cleanup.push(() => db.close(), bot.close);
    expect(await getBookCorrections({ db, botId: "bot-a" })).toMatchObject({ drifting: [], compared: null, latest: null });

    const clean = await nextCycle(bot);
    expect(clean.outcome).toBe("clean");
    const cleanAt = bot.sim.now().toISOString();
    expect(await getBookCorrections({ db, botId: "bot-a" })).toMatchObject({
      compared: { id: clean.reconciliationId, at: cleanAt },
      latest: { id: clean.reconciliationId, at: cleanAt, outcome: "clean" },
    });

    // The exchange's positions cannot be read: the cycle fails, and "every symbol agrees" is only known as of the clean one.
    bot.sim.inject({ on: "positions", fault: "fetch_fail" });
    const failed = await nextCycle(bot);
    expect(failed.outcome).toBe("error");
    expect(await getBookCorrections({ db, botId: "bot-a" })).toMatchObject({
      drifting: [],
      compared: { id: clean.reconciliationId, at: cleanAt },
      latest: { id: failed.reconciliationId, at: bot.sim.now().toISOString(), outcome: "error" },
    });
  });

  it("flattened on the venue takes the bot's book to 0; with the venue flat too, the next cycle is clean", async () => {
    const { bot, db, seen } = await sizeDrift();
    bot.sim.setPositionBehindBot("AAPL", 0); // the operator closed the rest on the venue
    const r = await act(db, spec, ana, { ...seen, kind: "flattened_on_venue", note: "closed the remaining 300 on the venue" }, bot.sim.now());
    expect(r).toMatchObject({ ok: true, data: { before: 500, after: 0, delta: -500 } });
    expect((await nextCycle(bot)).outcome).toBe("clean");
    expect(bot.writer.book().get("AAPL")).toBe(0);
  });

  it("refuses sizes that changed since the operator looked, saying what moved", async () => {
    const { bot, db, adopt } = await sizeDrift();
    bot.sim.advance(1_000);
    await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "sell", qty: 100, bar: "2026-08-10T15:31:00Z" }, { reduceOnly: true });
    await nextCycle(bot);
    const before = snapshotExceptAudit(bot.file);
    const audits = auditCount(bot.file);
    const r = await act(db, spec, ana, adopt, bot.sim.now());
    expectOnlyAudited(bot.file, before, audits, r, "conflict");
    expect(r).toMatchObject({
      message: expect.stringContaining("the bot's book moved from +500 to +400, and the exchange's position moved from +300 to +200"),
    });
  });

  it("refuses while an order settled after the cycle the operator saw: that cycle's sizes are out of date", async () => {
    const { bot, db, adopt } = await sizeDrift();
    bot.sim.advance(1_000);
    const sell = await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "sell", qty: 100, bar: "2026-08-10T15:31:00Z" }, { reduceOnly: true });
    const before = snapshotExceptAudit(bot.file);
    const audits = auditCount(bot.file);
    const r = await act(db, spec, ana, adopt, bot.sim.now());
    expectOnlyAudited(bot.file, before, audits, r, "conflict");
    expect(r).toMatchObject({
      message: expect.stringContaining(`Order ${sell.order.clientOrderId} on AAPL became filled after the bot's last reconciliation`),
    });
  });

  it("refuses a symbol in sync: nothing to correct", async () => {
    const { bot, db, adopt } = await sizeDrift();
    bot.sim.setPositionBehindBot("AAPL", 500);
    await nextCycle(bot);
    const before = snapshotExceptAudit(bot.file);
    const audits = auditCount(bot.file);
    const r = await act(db, spec, ana, { ...adopt, theirs: "500" }, bot.sim.now());
    expectOnlyAudited(bot.file, before, audits, r, "refused");
    expect(r).toMatchObject({ message: "bot-a AAPL is in sync (book +500, exchange +500): nothing to correct." });
  });

  it("refuses a symbol the bot never reconciled", async () => {
    const { bot, db, adopt } = await sizeDrift();
    const before = snapshotExceptAudit(bot.file);
    const audits = auditCount(bot.file);
    expectOnlyAudited(bot.file, before, audits, await act(db, spec, ana, { ...adopt, symbol: "MSFT" }, bot.sim.now()), "refused");
  });

  it("refuses while an order of the bot on that symbol is unsettled, naming it and where to settle it", async () => {
    const { bot, db, adopt } = await sizeDrift();
    bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
    bot.sim.inject({ on: "find", fault: "lookup_fail", times: 3 });
    const out = await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "sell", qty: 100, bar: "2026-08-10T15:31:00Z" }, { reduceOnly: true });
    expect(out.order.state).toBe("unknown");
    const before = snapshotExceptAudit(bot.file);
    const audits = auditCount(bot.file);
    const r = await act(db, spec, ana, adopt, bot.sim.now());
    expectOnlyAudited(bot.file, before, audits, r, "refused");
    expect(r).toMatchObject({
      message: `Order ${out.order.clientOrderId} on AAPL is unknown, not settled: it may be the very difference. Settle it first on /doubtful?bot=bot-a, then correct the book if it still drifts.`,
    });
  });

  it("refuses a second correction before the bot counted the first", async () => {
    const { bot, db, adopt } = await sizeDrift();
    expect((await act(db, spec, ana, adopt, bot.sim.now())).ok).toBe(true);
    const before = snapshotExceptAudit(bot.file);
    const audits = auditCount(bot.file);
    const r = await act(db, spec, ben, adopt, bot.sim.now());
    expectOnlyAudited(bot.file, before, audits, r, "conflict");
    expect(r).toMatchObject({ message: expect.stringContaining("operator:ana already corrected bot-a AAPL at") });
    expect(r).toMatchObject({ message: expect.stringContaining("(book +500 → +300), and the bot has not counted it yet") });
  });

  it("refuses bad input with field errors, and no session or a viewer without writing anything", async () => {
    const { bot, db, adopt } = await sizeDrift();
    const before = snapshotExceptAudit(bot.file);
    const audits = auditCount(bot.file);
    const bad = await act(db, spec, ana, { ...adopt, kind: "guess", note: "x", ours: "lots" }, bot.sim.now());
    expectOnlyAudited(bot.file, before, audits, bad, "invalid");
    expect(bad).toMatchObject({ fieldErrors: { kind: [expect.any(String)], note: [expect.any(String)], ours: [expect.any(String)] } });
    const lines = refusalLines.length;
    for (const user of [null, vic]) expect(await act(db, spec, user, adopt, bot.sim.now())).toMatchObject({ ok: false, code: "unauthorized" });
    expect(snapshotExceptAudit(bot.file)).toEqual(before);
    expect(auditCount(bot.file)).toBe(audits + 1);
    expect(refusalLines.length).toBe(lines + 2);
  });

  it("two operators correcting the same drift at once from two processes: it is counted once", async () => {
    const { bot, db, adopt } = await sizeDrift();
    const at = Date.now() + 1_500;
    const run = (name: string) =>
      new Promise<{ ok: boolean; code?: string; message?: string }>((resolve, reject) => {
        const child = spawn(
          path.join(repoRoot, "node_modules/.bin/tsx"),
          ["--conditions=react-server", "test/helpers/correct-race.ts", bot.file, name, JSON.stringify(adopt), bot.sim.now().toISOString(), String(at)],
          { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] },
        );
        let out = "";
        child.stdout.on("data", (d) => (out += d));
        child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`race child exited ${code}: ${out}`))));
      });
    const results = await Promise.all([run("ana"), run("ben")]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([expect.objectContaining({ code: "conflict", message: expect.stringContaining("already corrected") })]);
    expect(bot.rows(`SELECT count(*) AS n FROM book_corrections`)).toEqual([{ n: 1 }]);
    expect((await nextCycle(bot)).outcome).toBe("clean");
    expect(bot.writer.book().get("AAPL")).toBe(300);
    expect(
      auditRows(bot.file)
        .filter((a) => a.action === "correct_book")
        .map((a) => a.outcome)
        .sort(),
    ).toEqual(["applied", "refused"]);
    expect(verifyAuditLog(db, consoleAuditKey()).ok).toBe(true);
  });

  it("refuses any malformed field, and any well-formed line that is not the one drifting, with nothing written but the audit entry", async () => {
    const { bot, db, adopt } = await sizeDrift();
    const SQL = ["'; DROP TABLE book_corrections; --", "1 OR 1=1"];
    const bad = fc.oneof(
      fc.record({ kind: fc.oneof(fc.constantFrom("", "adopt", "ADOPT_EXCHANGE", ...SQL), fc.double(), fc.constant(null)) }),
      fc.record({ reconciliationId: fc.constantFrom("", "0", "-1", "1.5", "abc", "1e400", ...SQL) }),
      fc.record({ ours: fc.constantFrom("", "NaN", "Infinity", "lots", "1,5", ...SQL) }),
      fc.record({ note: fc.constantFrom("", "x", "    ok  ", "y".repeat(1_001), "checked \u202e on the venue") }),
      fc.record({ botId: fc.constantFrom("", " ", "b".repeat(300)) }),
    );
    const wrong = fc.oneof(
      fc.record({ botId: fc.constantFrom("bot-b", "BOT-A", ...SQL) }),
      fc.record({ symbol: fc.constantFrom("BTCUSDT", "aapl", "MSFT", ...SQL) }),
      fc.record({
        ours: fc
          .integer({ min: -1e6, max: 1e6 })
          .filter((n) => Math.abs(n - 500) >= 1)
          .map(String),
      }),
      fc.record({
        theirs: fc
          .integer({ min: -1e6, max: 1e6 })
          .filter((n) => Math.abs(n - 300) >= 1)
          .map(String),
      }),
    );
    const cases = fc.oneof(
      bad.map((change) => ({ change, codes: ["invalid"] })),
      wrong.map((change) => ({ change, codes: ["refused", "conflict"] })),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ change, codes }) => {
        const before = snapshotExceptAudit(bot.file);
        const audits = auditCount(bot.file);
        const r = await act(db, spec, ana, { ...adopt, ...change }, bot.sim.now());
        expect(r.ok).toBe(false);
        if (r.ok) return;
        expect(codes).toContain(r.code);
        expect(snapshotExceptAudit(bot.file)).toEqual(before);
        expect(auditCount(bot.file)).toBe(audits + 1);
        expect(auditRows(bot.file).at(-1)).toMatchObject({ action: "correct_book", outcome: "refused", code: r.code });
      }),
      { numRuns: 40 },
    );
    expect(verifyAuditLog(db, consoleAuditKey()).ok).toBe(true);
  });
});
