"""Real journal files for the tests: fresh temporary folders, migrated from the project's drizzle/."""

import datetime
import os
import shutil
import sqlite3
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import driftwatch_journal as dj  # noqa: E402

MIGRATIONS = os.path.join(HERE, "..", "..", "..", "drizzle")
START = datetime.datetime(2026, 8, 10, 15, 30, tzinfo=datetime.timezone.utc)


def temp_dir(test):
    folder = tempfile.mkdtemp(prefix="driftwatch-py-")
    test.addCleanup(shutil.rmtree, folder, True)
    return folder


def new_journal(test):
    folder = temp_dir(test)
    file = os.path.join(folder, "journal.db")
    dj.migrate(file, MIGRATIONS)
    return file


class Clock:
    """Simulated time: moves only when told (or when the writer sleeps between attempts)."""

    def __init__(self, at=START):
        self.at = at
        self.slept = []

    def __call__(self):
        return self.at

    def advance(self, ms):
        self.at += datetime.timedelta(milliseconds=ms)

    def sleep(self, ms):
        self.slept.append(ms)
        self.advance(ms)


def writer_on(file, clock=None, bot_id="bot-a", prefix="q500", **kw):
    con = dj.open_journal(file)
    clock = clock or Clock()
    alerts = []
    w = dj.JournalWriter(
        con, bot_id=bot_id, prefix=prefix, exchange="fake", clock=clock, sleep=clock.sleep, on_alert=alerts.append, **kw
    )
    w.register()
    return w, clock, alerts


def rows(file, sql, *params):
    con = sqlite3.connect(file)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def kinds(file, client_order_id):
    return [r[0] for r in rows(file, "SELECT kind FROM order_events WHERE client_order_id = ? ORDER BY id", client_order_id)]
