"""A complete (tiny) bot on driftwatch_journal, against a fake exchange that loses one reply.

    python3 clients/python/example_bot.py [journal.db]

Creates the journal from driftwatch's drizzle/ folder if needed, then trades five bars and prints
what it did. Point the console at the file (from a driftwatch checkout, after `npm run build`):
DRIFTWATCH_JOURNAL=$PWD/journal.db PORT=3000 npm start. The fake exchange lives in memory: use a new
journal for each run, or the second run trips a size drift (the book remembers the first run's fill).
"""

import datetime
import os
import sys

import driftwatch_journal as dj

DRIZZLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "drizzle")


class FakeExchange:
    """One account: orders by client order id, filled at once at 100; the first reply is lost."""

    def __init__(self):
        self.orders, self.position, self.lose_next_reply = {}, 0.0, True
        self.lost = set()  # the client order ids whose reply was lost

    def send(self, req):
        if req.client_order_id in self.orders:
            raise dj.DuplicateClientOrderId(f"duplicate client order id {req.client_order_id}")
        self.orders[req.client_order_id] = dj.ExchangeOrder("filled", f"x{len(self.orders) + 1}", float(req.qty), 100.0)
        self.position += float(req.qty) if req.side == "buy" else -float(req.qty)
        if self.lose_next_reply:
            self.lose_next_reply = False
            self.lost.add(req.client_order_id)
            raise dj.SendTimeout("timeout after 5000 ms")  # the order exists; the bot cannot know
        return self.orders[req.client_order_id]

    def lookup(self, client_order_id, symbol):
        return self.orders.get(client_order_id)  # None: proved absent

    def cancel_all(self, symbol):
        pass  # nothing rests on this venue: every order fills at once

    def close_reduce_only(self, client_order_id, symbol, size):
        self.position -= size
        return dj.ExchangeOrder("filled", f"x{len(self.orders) + 1}", abs(size), 100.0)

    def positions(self):
        return {"BTCUSDT": dj.Position(self.position, 100.0)} if self.position else {}


def main(path):
    if not os.path.exists(path):
        dj.migrate(path, DRIZZLE)
    venue = FakeExchange()
    bot = dj.JournalWriter(dj.open_journal(path), bot_id="py-example", prefix="pyex", exchange="fake")
    bot.register()
    bot.resolve_doubtful(venue.lookup)  # settle what a previous run left in doubt
    for minute in range(5):
        bar = datetime.datetime(2026, 8, 10, 15, 30 + minute, tzinfo=datetime.timezone.utc)
        bot.heartbeat()
        cycle = bot.reconcile(None, venue.positions, {"BTCUSDT": 0.001}, cancel_all=venue.cancel_all, close_reduce_only=venue.close_reduce_only)
        if bot.is_halted():  # read from the journal: an operator may have halted us by hand
            print(f"{bar:%H:%M} halted: {bot.breaker().reason}")
            continue
        side = "buy" if minute % 2 == 0 else "sell"
        order = dj.Order("flip", "BTCUSDT", side, 0.001, dj.iso_utc(bar))
        outcome = bot.send_once(order, venue.send, venue.lookup)
        # The point of the example: the lost reply is settled by asking the exchange, never by sending again.
        lost = " (its reply was lost: a lookup found it, nothing resent)" if outcome.order.client_order_id in venue.lost else ""
        print(f"{bar:%H:%M} {cycle.outcome:7} {side} 0.001 -> {outcome.kind} {outcome.order.state} [{outcome.order.client_order_id}]{lost}")
    bot.con.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "journal.db")
