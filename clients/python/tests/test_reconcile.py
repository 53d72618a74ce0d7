import unittest

from helpers import DATABASE_ERRORS, connect, dj, kinds, new_journal, rows, writer_on

BAR = "2026-08-10T15:30:00.000Z"
SPECS = {"BTCUSDT": 0.001, "ETHUSDT": {"qty_step": 0.01}}


class Venue:
    def __init__(self, positions=None, marks=None):
        self.positions = dict(positions or {})
        self.marks = dict(marks or {"BTCUSDT": 60000.0, "ETHUSDT": 3000.0, "SOLUSDT": 150.0})
        self.canceled, self.closed = [], []

    def theirs(self):
        return {s: dj.Position(size, self.marks.get(s)) for s, size in self.positions.items() if size != 0}

    def mark_prices(self, symbols):
        return {s: self.marks[s] for s in symbols if s in self.marks}

    def cancel_all(self, symbol):
        self.canceled.append(symbol)

    def close_reduce_only(self, client_order_id, symbol, size):
        self.closed.append((client_order_id, symbol, size))
        self.positions[symbol] = 0
        return dj.ExchangeOrder("filled", "x-close", abs(size), self.marks[symbol])

    def act(self):
        return {"cancel_all": self.cancel_all, "close_reduce_only": self.close_reduce_only, "mark_prices": self.mark_prices}


def filled(writer, symbol, side, qty):
    o = dj.Order("s", symbol, side, qty, BAR)
    writer.send_once(o, lambda r: dj.ExchangeOrder("filled", "x", float(r.qty), 1.0), lambda i, s: None, reduce_only=True)


class ReconcileTest(unittest.TestCase):
    def setUp(self):
        self.file = new_journal(self)
        self.w, self.clock, self.alerts = writer_on(self.file)

    def positions(self, rid):
        return rows(self.file, "SELECT symbol, ours, theirs, qty_step, mark_price FROM reconciliation_positions WHERE reconciliation_id = ? ORDER BY symbol", rid)

    def test_clean_cycle_writes_every_traded_symbol_with_its_mark_even_when_flat(self):
        filled(self.w, "BTCUSDT", "buy", 0.5)
        v = Venue({"BTCUSDT": 0.5})
        r = self.w.reconcile(None, v.theirs, SPECS, **v.act())
        self.assertEqual((r.outcome, r.tripped), ("clean", False))
        self.assertEqual(self.positions(r.reconciliation_id), [("BTCUSDT", 0.5, 0.5, 0.001, 60000.0), ("ETHUSDT", 0.0, 0.0, 0.01, 3000.0)])
        self.assertEqual(rows(self.file, "SELECT outcome, orders_in_flight, error FROM reconciliations"), [("clean", 0, None)])

    def test_skipped_while_an_order_is_in_flight_and_positions_are_not_even_fetched(self):
        self.w.send_once(dj.Order("s", "BTCUSDT", "buy", 1, BAR), lambda r: dj.ExchangeOrder("open", "x", 0, None), lambda i, s: None)

        def theirs():
            raise AssertionError("fetched positions while an order was in flight")

        r = self.w.reconcile(None, theirs, SPECS, cancel_all=print, close_reduce_only=print)
        self.assertEqual((r.outcome, r.orders_in_flight), ("skipped", 1))
        self.assertEqual(self.positions(r.reconciliation_id), [])

    def test_a_failed_fetch_is_an_error_cycle(self):
        def theirs():
            raise OSError("venue down")

        r = self.w.reconcile(None, theirs, SPECS, cancel_all=print, close_reduce_only=print)
        self.assertEqual(r.outcome, "error")
        self.assertEqual(rows(self.file, "SELECT outcome, error FROM reconciliations"), [("error", "fetch positions failed: venue down")])
        self.assertFalse(self.w.is_halted())
        self.assertEqual([a.kind for a in self.alerts], ["reconciliation_error"])

    def test_the_tolerance_is_half_a_step(self):
        filled(self.w, "ETHUSDT", "buy", 1.0)
        v = Venue({"ETHUSDT": 1.0049})
        self.assertEqual(self.w.reconcile(None, v.theirs, SPECS, **v.act()).outcome, "clean")
        v.positions["ETHUSDT"] = 1.006
        r = self.w.reconcile(None, v.theirs, SPECS, **v.act())
        self.assertEqual((r.outcome, [l.drift for l in r.lines if l.symbol == "ETHUSDT"]), ("drift", ["size_drift"]))

    def test_size_drift_trips_with_the_cycle_as_cause_and_leaves_the_position_alone(self):
        filled(self.w, "BTCUSDT", "buy", 0.5)
        v = Venue({"BTCUSDT": 0.3})
        r = self.w.reconcile(None, v.theirs, SPECS, **v.act())
        self.assertTrue(r.tripped)
        self.assertEqual(rows(self.file, "SELECT kind, reason, reconciliation_id FROM breaker_events"), [("trip", "size drift BTCUSDT: book +0.5 vs exchange +0.3", r.reconciliation_id)])
        self.assertEqual((v.canceled, v.closed), ([], []))
        # It persists: no second trip event.
        r2 = self.w.reconcile(None, v.theirs, SPECS, **v.act())
        self.assertEqual((r2.outcome, r2.tripped), ("drift", False))
        self.assertEqual(len(rows(self.file, "SELECT id FROM breaker_events")), 1)

    def test_unknown_position_is_canceled_closed_reduce_only_and_trips(self):
        v = Venue({"SOLUSDT": -12.5})
        r = self.w.reconcile(None, v.theirs, SPECS, **v.act())
        self.assertEqual(r.outcome, "drift")
        # An unknown market gets the tiny step: any size there is a drift.
        self.assertIn(("SOLUSDT", 0.0, -12.5, 1e-8, 150.0), self.positions(r.reconciliation_id))
        self.assertEqual(v.canceled, ["SOLUSDT"])
        close = rows(self.file, "SELECT client_order_id, strategy, symbol, side, qty, state, filled_qty, bar FROM orders")
        self.assertEqual(len(close), 1)
        cid, strategy, symbol, side, qty, state, filled_qty, bar = close[0]
        self.assertEqual((strategy, symbol, side, qty, state, filled_qty), ("reconcile", "SOLUSDT", "buy", 12.5, "filled", 12.5))
        self.assertEqual(v.closed, [(cid, "SOLUSDT", -12.5)])
        self.assertEqual(cid, dj.client_order_id("q500", "reconcile", "SOLUSDT", "buy", 12.5, bar))
        self.assertEqual(kinds(self.file, cid), ["intent", "send"])
        self.assertEqual(rows(self.file, "SELECT reason, reconciliation_id FROM breaker_events"), [("unknown position SOLUSDT -12.5", r.reconciliation_id)])
        # The close is not the bot's own position: the next cycle is clean.
        self.assertEqual(self.w.reconcile(None, v.theirs, SPECS, **v.act()).outcome, "clean")

    def test_an_unknown_position_beside_an_unknown_order_on_it_is_not_closed(self):
        def timeout(request):
            raise dj.SendTimeout("timeout after 5000 ms")

        def fail(cid, symbol):
            raise OSError("no answer")

        self.w.send_once(dj.Order("s", "BTCUSDT", "buy", 0.5, BAR), timeout, fail)
        oid = self.w.client_order_id(dj.Order("s", "BTCUSDT", "buy", 0.5, BAR))
        v = Venue({"BTCUSDT": 0.5})
        r = self.w.reconcile(None, v.theirs, SPECS, **v.act())
        self.assertEqual(r.outcome, "drift")
        self.assertEqual((v.canceled, v.closed), ([], []))
        self.assertEqual(rows(self.file, "SELECT count(*) FROM orders WHERE strategy = 'reconcile'"), [(0,)])
        self.assertEqual(self.w.breaker().reason, f"order {oid} unknown: send failed: timeout after 5000 ms; then lookup failed: no answer")
        self.assertEqual(
            [a.message for a in self.alerts if a.kind == "unknown_position"],
            [f"position BTCUSDT +0.5 the book does not hold, while order {oid} on it is unknown: not closed"],
        )

    def test_a_close_that_times_out_is_recorded_unknown(self):
        v = Venue({"SOLUSDT": 3})

        def close(cid, symbol, size):
            raise dj.SendTimeout("timeout after 5000 ms")

        self.w.reconcile(None, v.theirs, SPECS, cancel_all=v.cancel_all, close_reduce_only=close)
        self.assertEqual(rows(self.file, "SELECT side, state, last_error, attempts FROM orders"), [("sell", "unknown", "timeout after 5000 ms", 1)])

    def test_book_corrections_are_counted_every_cycle(self):
        filled(self.w, "BTCUSDT", "buy", 0.5)
        v = Venue({"BTCUSDT": 0.7})
        r = self.w.reconcile(None, v.theirs, SPECS, **v.act())
        self.assertEqual(r.outcome, "drift")
        console = connect(self.file)
        console.execute(
            "INSERT INTO book_corrections (bot_id, symbol, kind, ours, theirs, reconciliation_id, delta, note, corrected_by, corrected_at) "
            "VALUES ('bot-a', 'BTCUSDT', 'adopt_exchange', 0.5, 0.7, ?, 0.2, 'fill we missed', 'operator:ana', ?)",
            (r.reconciliation_id, dj.iso_utc(self.clock())),
        )
        console.close()
        self.assertAlmostEqual(self.w.book()["BTCUSDT"], 0.7)
        self.assertEqual(self.w.reconcile(None, v.theirs, SPECS, **v.act()).outcome, "clean")
        self.assertEqual([(c["symbol"], c["delta"]) for c in self.w.book_corrections()], [("BTCUSDT", 0.2)])
        self.assertEqual(self.w.book_corrections(after_id=1), [])

    def test_a_failing_mark_price_fetch_costs_the_value_not_the_cycle(self):
        def marks(symbols):
            raise OSError("ticker down")

        r = self.w.reconcile(None, {}, SPECS, cancel_all=print, close_reduce_only=print, mark_prices=marks)
        self.assertEqual(r.outcome, "clean")
        self.assertEqual(self.positions(r.reconciliation_id), [("BTCUSDT", 0.0, 0.0, 0.001, None), ("ETHUSDT", 0.0, 0.0, 0.01, None)])
        self.assertEqual([a.message for a in self.alerts], ["fetch mark prices failed: ticker down"])

    def test_the_snapshot_and_its_lines_are_one_transaction(self):
        # A line the schema refuses (qty_step 0 cannot pass drift_class; a NULL symbol can't be
        # compared): a spec that breaks the insert midway leaves no cycle behind.
        class BadStep:
            qty_step = float("nan")

        with self.assertRaises(ValueError):
            self.w.reconcile(None, {"BTCUSDT": 1}, {"BTCUSDT": BadStep()}, cancel_all=print, close_reduce_only=print)
        self.assertEqual(rows(self.file, "SELECT count(*) FROM reconciliations"), [(0,)])
        console = connect(self.file)
        if dj.is_postgres_url(self.file):
            console.script(
                "CREATE FUNCTION refuse_eth() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                " IF NEW.symbol = 'ETHUSDT' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;"
                " CREATE TRIGGER refuse_eth BEFORE INSERT ON reconciliation_positions FOR EACH ROW EXECUTE FUNCTION refuse_eth();"
            )
        else:
            console.execute(
                "CREATE TRIGGER refuse_eth BEFORE INSERT ON reconciliation_positions WHEN NEW.symbol = 'ETHUSDT' BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )
        console.close()
        with self.assertRaises(DATABASE_ERRORS):
            self.w.reconcile(None, {}, SPECS, cancel_all=print, close_reduce_only=print)
        self.assertEqual(rows(self.file, "SELECT count(*) FROM reconciliations"), [(0,)])
        self.assertEqual(rows(self.file, "SELECT count(*) FROM reconciliation_positions"), [(0,)])


if __name__ == "__main__":
    unittest.main()
