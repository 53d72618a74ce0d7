/**
 * A second process that misbehaves on a journal, for the fault tests. Each mode prints one line
 * when it reaches its point, so the parent knows when to look (or to SIGKILL it):
 *
 *   tsx --conditions=react-server test/helpers/fault-process.ts lock <journal> <wal|rollback> <hold-ms>
 *     takes an exclusive lock (WAL: locking_mode=EXCLUSIVE; rollback: BEGIN EXCLUSIVE), writes a
 *     heartbeat, prints "locked", holds it hold-ms, commits, prints "released" and exits.
 *   ... bot-txn <journal>
 *     a bot in the middle of a big transaction: BEGIN IMMEDIATE, hundreds of rows (spilled to the
 *     WAL by a tiny cache), prints "in-transaction" and waits to be killed.
 *   ... action <journal> <pause-at> <now-iso> <form-json>
 *     the console acknowledging a drift through the real guard, pausing forever at one point
 *     (before-begin, after-effect, after-audit, before-commit, after-commit, never) after
 *     printing "at <point>"; with "loop" it acknowledges again and again until killed.
 */
import fs from "node:fs";
import { acknowledgeDriftSpec } from "../../lib/actions/acknowledge-drift";
import { runGuarded } from "../../lib/actions/guard";
import { openJournalWriter } from "../../lib/db/journal-file";
import Database from "better-sqlite3";
import { consoleAuditKey } from "../../lib/audit/key";

const [mode, file, ...args] = process.argv.slice(2) as [string, string, ...string[]];

const say = (line: string) => fs.writeSync(1, `${line}\n`);
/** Blocks this thread for good (or for ms): the process sits exactly where it is until killed. */
const block = (ms = Infinity) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

if (mode === "lock") {
  const [kind, holdMs] = args as [string, string];
  const db = new Database(file, { timeout: 5000 });
  if (kind === "wal") db.pragma("locking_mode = EXCLUSIVE");
  db.exec("BEGIN EXCLUSIVE");
  db.prepare(`UPDATE bots SET heartbeat_at = ?`).run(new Date().toISOString());
  say("locked");
  block(Number(holdMs));
  db.prepare(`UPDATE bots SET heartbeat_at = ?`).run(new Date().toISOString());
  db.exec("COMMIT");
  db.close();
  say("released");
} else if (mode === "bot-txn") {
  const { db } = openJournalWriter(file);
  // A tiny page cache makes SQLite write the uncommitted pages into the WAL before COMMIT.
  db.pragma("cache_size = 5");
  db.exec("BEGIN IMMEDIATE");
  const at = new Date().toISOString();
  db.prepare(`UPDATE bots SET heartbeat_at = ?`).run(at);
  const order = db.prepare(
    `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, attempts, created_at, updated_at, version)
     VALUES (?, 'bot-a', 'killed', 'AAPL', 'buy', 1, ?, 'created', 0, ?, ?, 1)`,
  );
  const event = db.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, 'intent', 'bot', '{}')`);
  for (let i = 0; i < 800; i++) {
    const id = `q500-killed${String(i).padStart(9, "0")}`;
    order.run(id, at, at, at);
    event.run(id, at);
  }
  db.prepare(`INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES ('bot-a', ?, 'clean', 0)`).run(at);
  say("in-transaction");
  block();
} else if (mode === "action") {
  const [pauseAt, nowIso, form] = args as [string, string, string];
  const { db } = openJournalWriter(file);
  const pause = (point: string) => {
    if (point !== pauseAt) return;
    say(`at ${point}`);
    block();
  };
  db.function("fault_pause", (point: unknown) => {
    pause(String(point));
    return 0;
  });
  // Connection-local triggers: they pause this process mid-transaction without touching the file's schema.
  db.exec(`CREATE TEMP TRIGGER pause_after_effect AFTER INSERT ON main.drift_acknowledgements BEGIN SELECT fault_pause('after-effect'); END`);
  db.exec(`CREATE TEMP TRIGGER pause_after_audit AFTER INSERT ON main.audit_log BEGIN SELECT fault_pause('after-audit'); END`);
  const spec = acknowledgeDriftSpec({ ackTtlMs: 30 * 60_000 });
  const act = () =>
    runGuarded(
      spec,
      {
        db,
        user: { name: "ana", role: "operator" },
        now: () => new Date(nowIso),
        assertJournalFile: () => pause("before-commit"),
        auditKey: consoleAuditKey(),
      },
      JSON.parse(form),
    );
  if (pauseAt === "loop") {
    say("acting");
    for (;;) {
      const r = await act();
      if (!r.ok) throw new Error(r.message);
    }
  }
  pause("before-begin");
  const result = await act();
  pause("after-commit");
  db.close();
  say(JSON.stringify(result));
} else {
  throw new Error(`unknown mode ${mode}`);
}
