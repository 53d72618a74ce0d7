import unittest

from helpers import connect, dj, kinds, new_journal, rows, writer_on

BAR = "2026-08-10T15:30:00.000Z"
ORDER = dj.Order("media_movil", "AAPL", "buy", 500, BAR)
FILLED = dj.ExchangeOrder("filled", "x-1", 500, 92.0)


class Script:
    """An exchange that answers from a script: each call takes the next answer (an exception is raised)."""

    def __init__(self, sends=(), lookups=()):
        self.sends, self.lookups = list(sends), list(lookups)
        self.sent, self.looked = [], []

    @staticmethod
    def _next(answers, what):
        if not answers:
            raise AssertionError(f"unexpected {what}")
        a = answers.pop(0)
        if isinstance(a, BaseException):
            raise a
        return a

    def send(self, request):
        self.sent.append(request)
        return self._next(self.sends, "send")

    def lookup(self, client_order_id, symbol):
        self.looked.append((client_order_id, symbol))
        return self._next(self.lookups, "lookup")


class CompactIdTest(unittest.TestCase):
    def test_a_writer_for_okx_journals_and_sends_the_compact_id(self):
        # OKX refuses a clOrdId with a "-": id_form="compact" journals, sends and looks up the same
        # 20-digit digest right after the prefix, and the console counts it as the bot's own.
        file = new_journal(self)
        w, _, _ = writer_on(file, prefix="gamma", id_form="compact")
        ex = Script(sends=[FILLED])
        self.assertEqual(w.send_once(ORDER, ex.send, ex.lookup).kind, "placed")
        oid = dj.client_order_id("gamma", "media_movil", "AAPL", "buy", 500, BAR, "compact")
        self.assertRegex(oid, r"^gamma[0-9a-f]{20}$")
        self.assertEqual(ex.sent[0].client_order_id, oid)
        self.assertEqual(rows(file, "SELECT client_order_id, state FROM orders"), [(oid, "filled")])
        with self.assertRaises(dj.InvalidDecisionError):
            writer_on(file, bot_id="bot-b", prefix="gamma_b", id_form="compact")


class SendOnceTest(unittest.TestCase):
    def setUp(self):
        self.file = new_journal(self)
        self.w, self.clock, self.alerts = writer_on(self.file)
        self.oid = self.w.client_order_id(ORDER)

    def order(self):
        return self.w.order(self.oid)

    def test_ack_writes_intent_then_send(self):
        ex = Script(sends=[FILLED])
        out = self.w.send_once(ORDER, ex.send, ex.lookup)
        self.assertEqual(out.kind, "placed")
        self.assertEqual(out.order.client_order_id, self.oid)
        self.assertEqual(kinds(self.file, self.oid), ["intent", "send"])
        o = self.order()
        self.assertEqual((o.state, o.filled_qty, o.avg_price, o.attempts, o.exchange_order_id, o.version), ("filled", 500, 92, 1, "x-1", 3))
        self.assertEqual(ex.sent, [dj.OrderRequest(self.oid, "AAPL", "buy", 500, False)])
        detail = rows(self.file, "SELECT detail FROM order_events WHERE client_order_id = ? AND kind = 'send'", self.oid)[0][0]
        self.assertEqual(detail, '{"status":"filled","exchangeOrderId":"x-1","filledQty":500,"avgPrice":92}')

    def test_the_intent_is_committed_before_the_send(self):
        seen = []

        def send(request):
            # Another connection (the console) already sees the intent while the request is out.
            seen.append(rows(self.file, "SELECT state, attempts FROM orders WHERE client_order_id = ?", request.client_order_id))
            return FILLED

        self.w.send_once(ORDER, send, Script().lookup)
        self.assertEqual(seen, [[("created", 1)]])

    def test_reject_settles_the_order_without_a_retry(self):
        ex = Script(sends=[dj.OrderRejected("insufficient margin", "order q500-x rejected: insufficient margin")])
        out = self.w.send_once(ORDER, ex.send, ex.lookup)
        self.assertEqual((out.kind, out.reason), ("rejected", "insufficient margin"))
        self.assertEqual(kinds(self.file, self.oid), ["intent", "status"])
        o = self.order()
        self.assertEqual((o.state, o.attempts, o.last_error), ("rejected", 1, "order q500-x rejected: insufficient margin"))
        self.assertEqual(ex.looked, [])

    def test_timeout_then_found_sends_nothing_twice(self):
        ex = Script(sends=[dj.SendTimeout("timeout after 5000 ms")], lookups=[FILLED])
        out = self.w.send_once(ORDER, ex.send, ex.lookup)
        self.assertEqual(out.kind, "placed")
        self.assertEqual(len(ex.sent), 1)
        self.assertEqual(kinds(self.file, self.oid), ["intent", "timeout", "lookup_found"])
        self.assertEqual((self.order().state, self.order().attempts, self.order().last_error), ("filled", 1, None))
        self.assertEqual(self.clock.slept, [500])

    def test_timeout_then_absent_resends_once_with_the_same_id(self):
        ex = Script(sends=[TimeoutError("read timed out"), FILLED], lookups=[None])
        out = self.w.send_once(ORDER, ex.send, ex.lookup)
        self.assertEqual(out.kind, "placed")
        self.assertEqual([r.client_order_id for r in ex.sent], [self.oid, self.oid])
        self.assertEqual(kinds(self.file, self.oid), ["intent", "timeout", "lookup_absent", "send"])
        self.assertEqual(self.order().attempts, 2)

    def test_a_failing_lookup_never_resends_and_leaves_the_order_unknown_with_the_breaker_tripped(self):
        fail = ConnectionResetError("connection reset")
        ex = Script(sends=[dj.SendTimeout("timeout after 5000 ms")], lookups=[fail, fail, fail])
        out = self.w.send_once(ORDER, ex.send, ex.lookup)
        self.assertEqual(out.kind, "unknown")
        self.assertEqual(len(ex.sent), 1)
        self.assertEqual(kinds(self.file, self.oid), ["intent", "timeout", "error", "error", "error", "status"])
        o = self.order()
        # The send's timeout first, then what the lookups met: the lookup's error alone hid the timeout.
        why = "send failed: timeout after 5000 ms; then lookup failed: connection reset"
        self.assertEqual((o.state, o.attempts, o.last_error), ("unknown", 1, why))
        b = self.w.breaker()
        self.assertEqual((b.halted, b.reason, b.version), (True, f"order {self.oid} unknown: {why}", 2))
        self.assertEqual(rows(self.file, "SELECT kind, actor, reconciliation_id FROM breaker_events"), [("trip", "bot", None)])
        self.assertEqual([a.kind for a in self.alerts], ["unknown_order"])
        # The next new entry is refused, a reduction is not.
        with self.assertRaises(dj.BreakerHalted):
            self.w.send_once(dj.Order("media_movil", "MSFT", "buy", 1, BAR), Script().send, Script().lookup)
        self.assertEqual(rows(self.file, "SELECT count(*) FROM orders WHERE symbol = 'MSFT'"), [(0,)])
        ok = Script(sends=[dj.ExchangeOrder("filled", "x-2", 1, 10.0)])
        self.assertEqual(self.w.send_once(dj.Order("exit", "MSFT", "sell", 1, BAR), ok.send, ok.lookup, reduce_only=True).kind, "placed")
        self.assertTrue(ok.sent[0].reduce_only)

    def test_a_hand_made_halt_stops_the_next_entry(self):
        console = connect(self.file)
        console.execute("BEGIN" if dj.is_postgres_url(self.file) else "BEGIN IMMEDIATE")
        console.execute(
            "UPDATE breakers SET halted = 1, reason = 'by hand', changed_at = ?, changed_by = 'operator:ana', version = version + 1 WHERE bot_id = ? AND halted = 0",
            (dj.iso_utc(self.clock()), "bot-a"),
        )
        console.execute("INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('bot-a', ?, 'trip', 'by hand', 'operator:ana', NULL)", (dj.iso_utc(self.clock()),))
        console.execute("COMMIT")
        console.close()
        self.assertTrue(self.w.is_halted())
        with self.assertRaises(dj.BreakerHalted) as refused:
            self.w.send_once(ORDER, Script().send, Script().lookup)
        self.assertIn("by hand", str(refused.exception))
        self.assertEqual(rows(self.file, "SELECT count(*) FROM orders"), [(0,)])
        # The bot's own trip does not overwrite the operator's halt.
        self.assertFalse(self.w.trip("drift"))
        self.assertEqual(rows(self.file, "SELECT changed_by, reason FROM breakers"), [("operator:ana", "by hand")])

    def test_the_same_decision_again_is_not_sent_again(self):
        ex = Script(sends=[FILLED])
        self.w.send_once(ORDER, ex.send, ex.lookup)
        again = self.w.send_once(ORDER, ex.send, ex.lookup)
        self.assertEqual(again.kind, "existing")
        self.assertEqual(len(ex.sent), 1)
        self.assertEqual(kinds(self.file, self.oid), ["intent", "send"])

    def test_an_intent_left_by_a_dead_run_is_looked_up_before_it_is_sent(self):
        self.w.record_intent(ORDER)
        ex = Script(lookups=[FILLED])
        self.assertEqual(self.w.send_once(ORDER, ex.send, ex.lookup).kind, "placed")
        self.assertEqual(ex.sent, [])
        self.assertEqual(kinds(self.file, self.oid), ["intent", "lookup_found"])

    def test_resolve_doubtful_settles_what_it_can_and_trips_on_the_rest(self):
        a, b, c = (dj.Order("s", sym, "buy", 1, BAR) for sym in ("AAPL", "MSFT", "NVDA"))
        for o in (a, b, c):
            self.w.record_intent(o)
        answers = {"AAPL": FILLED, "MSFT": None, "NVDA": OSError("venue down")}

        def lookup(client_order_id, symbol):
            answer = answers[symbol]
            if isinstance(answer, Exception):
                raise answer
            return answer

        report = self.w.resolve_doubtful(lookup)
        ids = [self.w.client_order_id(o) for o in (a, b, c)]
        self.assertEqual((report.checked, report.found, report.absent, report.unknown), (3, [ids[0]], [ids[1]], [ids[2]]))
        self.assertEqual([self.w.order(i).state for i in ids], ["filled", "absent", "unknown"])
        self.assertEqual(kinds(self.file, ids[2]), ["intent", "error", "status"])
        self.assertEqual(self.w.breaker().reason, f"1 order(s) unknown after startup recovery: {ids[2]}")
        # An absent order is resent with its own id, after no further lookup.
        ex = Script(sends=[dj.ExchangeOrder("filled", "x-9", 1, 1.0)])
        self.assertEqual(self.w.send_once(b, ex.send, ex.lookup, reduce_only=True).kind, "placed")
        self.assertEqual(kinds(self.file, ids[1]), ["intent", "lookup_absent", "send"])

    def test_a_version_checked_trip_changes_nothing_on_a_stale_view(self):
        seen = self.w.breaker().version
        self.assertFalse(self.w.trip("stale", seen_version=seen + 1))
        self.assertFalse(self.w.is_halted())
        self.assertTrue(self.w.trip("fresh", seen_version=seen))
        self.assertEqual(self.w.breaker().version, seen + 1)

    def test_heartbeat_writes_the_clock(self):
        self.clock.advance(1234)
        self.w.heartbeat()
        self.assertEqual(rows(self.file, "SELECT heartbeat_at FROM bots"), [("2026-08-10T15:30:01.234Z",)])


if __name__ == "__main__":
    unittest.main()
