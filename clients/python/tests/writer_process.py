"""A bot process for test_killed_writer: writes orders until it is killed.

argv: journal mode marker
mode "send": every order is acknowledged at once, except that before each send the process writes
its order number to the marker file; from the 20th order on the send hangs (the reply never comes),
so a SIGKILL lands between the committed intent and the reply.
mode "transaction": 20 orders, then a BEGIN IMMEDIATE (BEGIN on PostgreSQL) that inserts rows and
hangs before COMMIT.
"""

import os
import sys
import time

from helpers import dj

file, mode, marker = sys.argv[1:4]
con = dj.open_journal(file)
w = dj.JournalWriter(con, bot_id="killed", prefix="k", exchange="fake")
w.register()


def mark(text):
    # Written whole, then renamed into place: the test polls for the file and reads it at once, and
    # a file seen between its creation and its write read as empty (a rare failure of the send test).
    with open(marker + ".tmp", "w") as f:
        f.write(text + "\n")
    os.replace(marker + ".tmp", marker)


def send(request):
    return dj.ExchangeOrder("filled", "x-" + request.client_order_id, float(request.qty), 10.0)


for i in range(1, 1000):
    order = dj.Order("loop", "AAPL", "buy", i, f"2026-08-10T15:{i // 60:02d}:{i % 60:02d}.000Z")
    if mode == "send" and i >= 20:
        def hang(request):
            mark(f"sending {request.client_order_id}")
            time.sleep(60)

        w.send_once(order, hang, lambda cid, sym: None)
    elif mode == "transaction" and i >= 20:
        con.execute("BEGIN" if dj.is_postgres_url(file) else "BEGIN IMMEDIATE")
        con.execute(
            "INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, created_at, updated_at) "
            "VALUES ('k-uncommitted', 'killed', 'loop', 'AAPL', 'buy', 1, 'x', 'created', 'x', 'x')"
        )
        con.execute("UPDATE bots SET heartbeat_at = 'uncommitted' WHERE bot_id = 'killed'")
        mark("in transaction")
        time.sleep(60)
    else:
        w.send_once(order, send, lambda cid, sym: None)
