"""Replays a TypeScript writer's run (test/helpers/writer-trace.ts) through the Python writer
(clients/python/driftwatch_journal.py) into a new journal made from drizzle/*.sql by the module's
own migrate(). Operator actions taken meanwhile (a halt by hand, a book correction, a clear) are
written as the console wrote them, at the same point of the story. The exchange answers exactly as it answered the TypeScript writer, at the same clock;
any question the Python writer asks that the TypeScript writer did not ask (or in another order, or
with other arguments), any question it fails to ask, and any different result stops the replay.

usage: python3 replay_writer_trace.py TRACE.json JOURNAL MIGRATIONS_DIR

JOURNAL is a file, or a postgresql:// URL of an empty database (migrated from MIGRATIONS_DIR/pg).
"""

import datetime
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))

import driftwatch_journal as dj  # noqa: E402


class Mismatch(BaseException):
    """BaseException: the writer must not take a broken replay for a failing exchange."""


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)


class Clock:
    def __init__(self):
        self.at = None

    def __call__(self):
        return self.at

    def sleep(self, ms):
        self.at += datetime.timedelta(milliseconds=ms)


def exchange_error(e):
    name, message = e["name"], e["message"]
    if name == "SendTimeoutError":
        return dj.SendTimeout(message)
    if name == "OrderRejectedError":
        return dj.OrderRejected(e["reason"], message)
    if name == "DuplicateClientOrderIdError":
        return dj.DuplicateClientOrderId(message)
    if name == "RateLimitError":
        return dj.RateLimited(message)
    return Exception(message)


def exchange_order(o):
    return None if o is None else dj.ExchangeOrder(o["status"], o["exchangeOrderId"], o["filledQty"], o["avgPrice"])


class Venue:
    """The recorded exchange of one writer call."""

    def __init__(self, call, con):
        self.con = con
        self.where = f"{call['bot']} {call['method']} at {call['at']}"
        self.calls = list(call["calls"])

    def answer(self, fn, args):
        if not self.calls:
            raise Mismatch(f"{self.where}: the Python writer called {fn}{args}, the TypeScript writer asked nothing more")
        rec = self.calls.pop(0)
        if rec["fn"] != fn or rec["args"] != args:
            raise Mismatch(f"{self.where}: the Python writer called {fn}{args}, the TypeScript writer {rec['fn']}{rec['args']}")
        if "error" in rec:
            raise exchange_error(rec["error"])
        return rec["ok"]

    def send(self, r):
        return exchange_order(
            self.answer("createOrder", [{"clientOrderId": r.client_order_id, "symbol": r.symbol, "side": r.side, "qty": r.qty, "reduceOnly": r.reduce_only}])
        )

    def lookup(self, client_order_id, symbol):
        # The TypeScript writer also tells its adapter when the order was placed (venues keep closed
        # orders for a while only); the Python module's lookup callable does not take it yet, so the
        # replay reads it from the journal to compare the rest of the question.
        (placed_at,) = self.con.execute("SELECT created_at FROM orders WHERE client_order_id = ?", (client_order_id,)).fetchone()
        return exchange_order(self.answer("findOrder", [{"symbol": symbol, "clientOrderId": client_order_id, "placedAt": placed_at}]))

    def theirs(self):
        return {p["symbol"]: dj.Position(p["size"], p["markPrice"]) for p in self.answer("fetchPositions", [])}

    def mark_prices(self, symbols):
        return dict(self.answer("fetchMarkPrices", [list(symbols)]))

    def cancel_all(self, symbol):
        return self.answer("cancelAllOrders", [symbol])

    def close_reduce_only(self, client_order_id, symbol, size):
        return exchange_order(self.answer("closeReduceOnly", [{"clientOrderId": client_order_id, "symbol": symbol, "size": size}]))


def operator_write_pg(con, changes):
    """The console's rows on PostgreSQL: an upsert on each table's primary key, the audit chain's
    advisory lock first (docs/journal.md), and each identity moved past the ids named, so the
    writer's next row of that table gets a new one."""
    con.execute("BEGIN")
    if any(c["table"] == "audit_log" for c in changes):
        con.execute("SELECT pg_advisory_xact_lock(hashtext('driftwatch.audit_log'))")
    for change in changes:
        table, cols = change["table"], list(change["row"])
        pk = [
            r[0]
            for r in con.execute(
                "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
                " WHERE i.indrelid = ?::regclass AND i.indisprimary",
                (table,),
            ).fetchall()
        ]
        rest = [c for c in cols if c not in pk]
        update = f"DO UPDATE SET {', '.join(f'{c} = excluded.{c}' for c in rest)}" if rest else "DO NOTHING"
        con.execute(
            f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)}) ON CONFLICT ({', '.join(pk)}) {update}",
            [change["row"][c] for c in cols],
        )
        if pk == ["id"]:
            con.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
    con.execute("COMMIT")


def replay(trace, file, migrations):
    dj.migrate(file, migrations)
    writers, clocks = {}, {}
    for bot in trace["bots"]:
        clock = Clock()
        con = dj.open_journal(file, synchronous="NORMAL")
        writers[bot["botId"]] = dj.JournalWriter(
            con,
            bot_id=bot["botId"],
            prefix=bot["prefix"],
            exchange=bot["exchange"],
            clock=clock,
            sleep=clock.sleep,
            retry_attempts=bot["attempts"],
            backoff_ms=bot["backoffMs"],
            unknown_symbol_qty_step=bot["unknownSymbolQtyStep"],
        )
        clocks[bot["botId"]] = clock
    for call in trace["calls"]:
        if call["method"] == "journal":
            # An operator's action, as the console wrote it: the same rows at the same point.
            con = next(iter(writers.values())).con
            if dj.is_postgres_url(file):
                operator_write_pg(con, call["rows"])
                continue
            con.execute("BEGIN IMMEDIATE")
            for change in call["rows"]:
                cols = list(change["row"])
                con.execute(
                    f"INSERT OR REPLACE INTO {change['table']} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                    [change["row"][c] for c in cols],
                )
            con.execute("COMMIT")
            continue
        w = writers[call["bot"]]
        venue = Venue(call, w.con)
        clocks[call["bot"]].at = parse_time(call["at"])
        method, args = call["method"], call["args"]
        result = None
        if method == "register":
            w.register()
        elif method == "heartbeat":
            w.heartbeat()
        elif method == "recover":
            r = w.resolve_doubtful(venue.lookup)
            result = {"checked": r.checked, "found": r.found, "absent": r.absent, "unknown": r.unknown}
        elif method == "refresh":
            result = {"state": w.refresh(args[0], venue.lookup).state}
        elif method == "sendOnce":
            d, opts = args[0], (args[1] if len(args) > 1 else {})
            order = dj.Order(d["strategy"], d["symbol"], d["side"], d["qty"], d["bar"])
            try:
                result = {"kind": w.send_once(order, venue.send, venue.lookup, reduce_only=bool(opts.get("reduceOnly"))).kind}
            except dj.BreakerHalted:
                result = {"threw": "BreakerHaltedError"}
        elif method == "reconcile":
            r = w.reconcile(
                None, venue.theirs, call["specs"], cancel_all=venue.cancel_all, close_reduce_only=venue.close_reduce_only, mark_prices=venue.mark_prices
            )
            result = {"outcome": r.outcome, "reconciliationId": r.reconciliation_id, "tripped": r.tripped}
        else:
            raise Mismatch(f"no replay for {method}")
        if venue.calls:
            raise Mismatch(f"{venue.where}: the Python writer never asked {[c['fn'] for c in venue.calls]}")
        if result != call["result"]:
            raise Mismatch(f"{venue.where}: the Python writer returned {result}, the TypeScript writer {call['result']}")
    for w in writers.values():
        w.con.close()
    return len(trace["calls"])


if __name__ == "__main__":
    trace_file, journal, migrations = sys.argv[1:4]
    with open(trace_file) as f:
        n = replay(json.load(f), journal, migrations)
    print(json.dumps({"replayed": n}))
