/**
 * The soak's core without a Next build: the soak bot in a process of its own, writing fast and
 * making incidents, while this process acts as the operator through the same guarded actions the
 * console runs (a second writer on the same file). Then the soak's checks pass, and fail when a
 * confirmed row, an order's update, an audit entry or an action's effect is taken away.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, test } from "vitest";
import { acknowledgeDriftSpec } from "@/lib/actions/acknowledge-drift";
import { clearHaltSpec } from "@/lib/actions/clear-halt";
import { runGuarded, type ActingUser } from "@/lib/actions/guard";
import { resolveManuallySpec } from "@/lib/actions/resolve-order";
import { getClearChecklist } from "@/lib/queries/clear-checklist";
import { getCurrentBookLine } from "@/lib/queries/book-line";
import { INCIDENT_SYMBOL, SOAK_BOT_ID, type SoakBotReport } from "@/tools/soak/bot";
import { verifyActions, verifyBotRows, type ConfirmedAction } from "@/tools/soak/verify";
import { consoleWriter } from "../helpers/actions";
import { migratedJournal, repoRoot, tempDir } from "../helpers/journal";
import { consoleAuditKey } from "@/lib/audit/key";

const operator: ActingUser = { name: "soak", role: "operator" };
const ACTOR = "operator:soak";
const deps = { heartbeatStaleMs: 60_000, doubtfulGraceMs: 30_000, twoPersonClear: false, twoPersonWindowMs: 600_000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the browser operator of scripts/soak.ts does, one look at a time, through the guard. */
async function operatorStep(db: Database.Database, typoTried: Set<string>, confirmed: ConfirmedAction[]): Promise<void> {
  const now = new Date();
  const { facts, items } = await getClearChecklist({ db, botId: SOAK_BOT_ID, now, ...deps });
  if (!facts.breaker?.halted) return;
  const unmet = new Set(items.filter((i) => !i.met).map((i) => i.key));
  const record = (action: ConfirmedAction["action"], target: string, r: { ok: boolean; code?: string }) => {
    confirmed.push(r.ok ? { action, target, outcome: "applied" } : { action, target, outcome: "refused", code: r.code });
  };
  if (unmet.has("drifts")) {
    const line = getCurrentBookLine({ db, botId: SOAK_BOT_ID, symbol: INCIDENT_SYMBOL });
    if (line && line.drift !== "none") {
      const r = await runGuarded(
        acknowledgeDriftSpec({ ackTtlMs: 600_000 }),
        { db, user: operator, auditKey: consoleAuditKey() },
        {
          botId: SOAK_BOT_ID,
          symbol: INCIDENT_SYMBOL,
          drift: line.drift,
          ours: line.ours,
          theirs: line.theirs,
          driftSince: line.driftSince ?? "",
          note: "checked on the venue",
        },
      );
      return record("acknowledge_drift", `${SOAK_BOT_ID}/${INCIDENT_SYMBOL}`, r as { ok: boolean; code?: string });
    }
  }
  if (unmet.has("doubtful")) {
    const order = db.prepare(`SELECT client_order_id AS id, qty, version FROM orders WHERE bot_id = ? AND state = 'unknown' LIMIT 1`).get(SOAK_BOT_ID) as
      { id: string; qty: number; version: number } | undefined;
    if (order) {
      const typo = !typoTried.has(order.id);
      typoTried.add(order.id);
      const r = await runGuarded(
        resolveManuallySpec({ graceMs: deps.doubtfulGraceMs }),
        { db, user: operator, auditKey: consoleAuditKey() },
        {
          clientOrderId: order.id,
          version: order.version,
          status: "filled",
          filledQty: String(typo ? order.qty * 2 : order.qty),
          note: "the venue shows it filled",
        },
      );
      return record("resolve_order_manual", order.id, r as { ok: boolean; code?: string });
    }
  }
  if (unmet.size === 0) {
    const r = await runGuarded(
      clearHaltSpec(deps),
      { db, user: operator, auditKey: consoleAuditKey() },
      { botId: SOAK_BOT_ID, breakerVersion: facts.breaker.version, reason: "settled and acknowledged", confirmBotId: SOAK_BOT_ID },
    );
    record("clear_halt", SOAK_BOT_ID, r as { ok: boolean; code?: string });
  }
}

/** A copy of a closed journal (and its WAL, if one is left) to tamper with. */
function copyJournal(file: string): string {
  const copy = path.join(tempDir("soak-copy"), "journal.db");
  fs.copyFileSync(file, copy);
  for (const ext of ["-wal", "-shm"]) if (fs.existsSync(file + ext)) fs.copyFileSync(file + ext, copy + ext);
  return copy;
}

function checks(file: string, report: SoakBotReport, confirmed: ConfirmedAction[]) {
  const db = new Database(file, { readonly: true });
  try {
    return { rows: verifyBotRows(db, report), actions: verifyActions(db, ACTOR, confirmed, consoleAuditKey()) };
  } finally {
    db.close();
  }
}

describe("the soak's checks, on a journal written by the soak bot in its own process", () => {
  let file: string;
  let report: SoakBotReport;
  const confirmed: ConfirmedAction[] = [];

  beforeAll(async () => {
    file = migratedJournal("soak");
    const reportFile = path.join(path.dirname(file), "bot-report.json");
    const bot = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "scripts/soak-bot.ts",
        "--journal",
        file,
        "--seconds",
        "5",
        "--rate",
        "250",
        "--incident-every",
        "1",
        "--first-incident",
        "0.3",
        "--report",
        reportFile,
      ],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    bot.stdout.on("data", (d) => (output += d));
    bot.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => bot.once("exit", resolve));
    let running = true;
    void exited.then(() => (running = false));
    // The operator acts while the bot writes: a second process writing the same file.
    const db = consoleWriter(file);
    const typoTried = new Set<string>();
    while (running) {
      try {
        await operatorStep(db, typoTried, confirmed);
      } catch (error) {
        if (!String((error as Error).message).includes("no such table")) throw error;
      }
      await sleep(100);
    }
    db.close();
    expect(await exited, output).toBe(0);
    report = JSON.parse(fs.readFileSync(reportFile, "utf8")) as SoakBotReport;
  });

  test("finds every row and order update the bot confirmed, with no SQLITE_BUSY at the bot", () => {
    expect(report.busy).toBe(0);
    expect(report.errors, report.errorSamples.join("; ")).toBe(0);
    expect(report.writes).toBeGreaterThan(0);
    expect(report.incidents).toBeGreaterThan(0);
    const { rows } = checks(file, report, confirmed);
    expect(rows.expected).toBeGreaterThan(report.rows.orders.length);
    expect(rows).toMatchObject({ found: rows.expected, missing: 0, staleOrders: 0, heartbeatKept: true });
  });

  test("matches every confirmed action to its audit entry and its effect, applied and refused, on a verified chain", () => {
    expect(confirmed.some((a) => a.outcome === "applied")).toBe(true);
    expect(confirmed.some((a) => a.outcome === "refused" && a.action === "resolve_order_manual")).toBe(true);
    const { actions } = checks(file, report, confirmed);
    expect(actions).toMatchObject({ lost: 0, unmatchedEntries: 0, effectMismatches: 0, chain: { ok: true, entries: confirmed.length } });
  });

  test("counts a row deleted behind the bot's back as lost, and names it", () => {
    const copy = copyJournal(file);
    const victim = report.rows.order_events[Math.floor(report.rows.order_events.length / 2)]!;
    const db = new Database(copy);
    db.prepare(`DELETE FROM order_events WHERE rowid = ?`).run(victim);
    db.close();
    const { rows } = checks(copy, report, confirmed);
    expect(rows.missing).toBe(1);
    expect(rows.found).toBe(rows.expected - 1);
    expect(rows.samples[0]).toContain(`order_events rowid ${victim}`);
  });

  test("counts an order rolled back to an older version than the bot confirmed", () => {
    const copy = copyJournal(file);
    const [id, version] = Object.entries(report.orders).find(([, v]) => v > 1)!;
    const db = new Database(copy);
    db.prepare(`UPDATE orders SET version = ? WHERE client_order_id = ?`).run(version - 1, id);
    db.close();
    const { rows } = checks(copy, report, confirmed);
    expect(rows.staleOrders).toBe(1);
    expect(rows.samples[0]).toContain(id);
  });

  test("counts a confirmed action whose audit entry is gone as lost, and the chain as broken", () => {
    const copy = copyJournal(file);
    const db = new Database(copy);
    db.exec(
      `DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE id = (SELECT max(id) FROM audit_log WHERE actor = '${ACTOR}' AND outcome = 'refused')`,
    );
    db.close();
    const { actions } = checks(copy, report, confirmed);
    expect(actions.lost).toBe(1);
    expect(actions.chain.ok).toBe(false);
  });

  test("counts an applied action whose effect is gone, though its audit entry stands", () => {
    const copy = copyJournal(file);
    const db = new Database(copy);
    const deleted = db.prepare(`DELETE FROM drift_acknowledgements WHERE id = (SELECT max(id) FROM drift_acknowledgements)`).run().changes;
    db.close();
    expect(deleted).toBe(1);
    const { actions } = checks(copy, report, confirmed);
    expect(actions.lost).toBe(0);
    expect(actions.effectMismatches).toBe(1);
    expect(actions.chain.ok).toBe(true);
  });
});
