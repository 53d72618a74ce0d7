/**
 * A bot's journal writes at a steady rate, timed one by one, in its own process: the benchmark's
 * measure of what the console costs the bot. Plain SQL, as a bot in any language writes it: an
 * intent (order + event), its reply (update + event), and every 15th write a reconciliation of 50
 * symbols; each in one BEGIN IMMEDIATE transaction with the contract's 5 s busy timeout.
 *
 * Driven over IPC: {phase: name} tags the following writes; {stop: true} answers with every
 * phase's latencies (ms) and the SQLITE_BUSY errors seen, then exits. Each write is also timed in
 * its three parts (`parts`): BEGIN IMMEDIATE (waiting for the write lock, through SQLite's busy
 * handler), the statements, and COMMIT (the WAL append, its fsync, and any auto-checkpoint), so
 * a slower tail can be traced to the lock, the disk or the checkpoints.
 * Usage: tsx scripts/bench/bot-writes.ts JOURNAL [intervalMs]
 */
import Database from "better-sqlite3";

const [file, intervalArg] = process.argv.slice(2);
if (!file) throw new Error("usage: tsx scripts/bench/bot-writes.ts JOURNAL [intervalMs]");
const intervalMs = Number(intervalArg ?? 20);
const db = new Database(file);
db.pragma("busy_timeout = 5000");
if (db.pragma("journal_mode", { simple: true }) !== "wal") throw new Error("the journal must be in WAL mode");

const BOT = "benchbot";
const SYMBOLS = Array.from({ length: 50 }, (_, i) => `B${String(i + 1).padStart(2, "0")}`);
const iso = () => new Date().toISOString();
db.prepare(`INSERT OR IGNORE INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES (?, 'sim', ?, ?)`).run(BOT, BOT, iso());
db.prepare(`INSERT OR IGNORE INTO breakers (bot_id, halted, changed_at, changed_by) VALUES (?, 0, ?, 'bot')`).run(BOT, iso());

const intent = (id: string, symbol: string) => {
  const at = iso();
  db.prepare(
    `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, created_at, updated_at) VALUES (?, ?, 'bench', ?, 'buy', 1, ?, 'created', ?, ?)`,
  ).run(id, BOT, symbol, at, at, at);
  db.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, 'intent', 'bot', '{}')`).run(id, at);
};
const reply = (id: string) => {
  const at = iso();
  db.prepare(
    `UPDATE orders SET state = 'filled', filled_qty = qty, avg_price = 100, attempts = 1, updated_at = ?, version = version + 1 WHERE client_order_id = ?`,
  ).run(at, id);
  db.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, 'status', 'bot', '{"state":"filled"}')`).run(id, at);
};
const reconcile = () => {
  const at = iso();
  const rid = Number(db.prepare(`INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES (?, ?, 'clean', 0)`).run(BOT, at).lastInsertRowid);
  const put = db.prepare(`INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, ?, ?, ?, 1, 100)`);
  SYMBOLS.forEach((s, i) => put.run(rid, s, i % 7, i % 7));
  db.prepare(`UPDATE bots SET heartbeat_at = ? WHERE bot_id = ?`).run(at, BOT);
};
const begin = db.prepare("BEGIN IMMEDIATE");
const commit = db.prepare("COMMIT");

/** One write in its own BEGIN IMMEDIATE transaction, timed in parts: [lock wait, statements, commit]. */
function timed(body: () => void): [number, number, number] {
  const t0 = process.hrtime.bigint();
  begin.run();
  const t1 = process.hrtime.bigint();
  try {
    body();
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
  const t2 = process.hrtime.bigint();
  commit.run();
  const t3 = process.hrtime.bigint();
  return [Number(t1 - t0) / 1e6, Number(t2 - t1) / 1e6, Number(t3 - t2) / 1e6];
}

const latencies = new Map<string, number[]>();
const parts = new Map<string, { lock: number[]; body: number[]; commit: number[] }>();
let phase = "warmup";
let busy = 0;
let otherErrors = 0;
let n = 0;
let pending: string | null = null;
const run = process.pid.toString(36);

function tick() {
  n += 1;
  const started = process.hrtime.bigint();
  try {
    let split: [number, number, number];
    if (n % 15 === 0) split = timed(reconcile);
    else if (pending) {
      const id = pending;
      split = timed(() => reply(id));
      pending = null;
    } else {
      const id = `${BOT}-${run}-${n}`;
      split = timed(() => intent(id, SYMBOLS[n % SYMBOLS.length] ?? "B01"));
      pending = id;
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    let list = latencies.get(phase);
    if (!list) latencies.set(phase, (list = []));
    list.push(ms);
    let p = parts.get(phase);
    if (!p) parts.set(phase, (p = { lock: [], body: [], commit: [] }));
    p.lock.push(split[0]);
    p.body.push(split[1]);
    p.commit.push(split[2]);
  } catch (error) {
    if ((error as { code?: string }).code === "SQLITE_BUSY") busy += 1;
    else otherErrors += 1;
  }
}

const timer = setInterval(tick, intervalMs);
process.on("message", (m: { phase?: string; stop?: boolean }) => {
  if (m.phase) phase = m.phase;
  if (m.stop) {
    clearInterval(timer);
    db.close();
    process.send!({ latencies: Object.fromEntries(latencies), parts: Object.fromEntries(parts), busy, otherErrors }, () => process.exit(0));
  }
});
process.send!({ ready: true });
