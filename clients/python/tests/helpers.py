"""Real journals for the tests: fresh temporary files migrated from the project's drizzle/, or, when
DRIFTWATCH_TEST_PG_URL names a PostgreSQL server (test/integration/python-postgres.test.ts starts
one and runs the writer tests again with it), fresh databases there migrated from drizzle/pg."""

import datetime
import os
import shutil
import sqlite3
import sys
import tempfile
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import driftwatch_journal as dj  # noqa: E402

MIGRATIONS = os.path.join(HERE, "..", "..", "..", "drizzle")
START = datetime.datetime(2026, 8, 10, 15, 30, tzinfo=datetime.timezone.utc)


def temp_dir(test):
    folder = tempfile.mkdtemp(prefix="driftwatch-py-")
    test.addCleanup(shutil.rmtree, folder, True)
    return folder


# The writer tests' engine: SQLite files unless the driver names a PostgreSQL server.
PG_URL = os.environ.get("DRIFTWATCH_TEST_PG_URL")
_pg_template = []


def _pg_database_url(name):
    return PG_URL.rsplit("/", 1)[0] + "/" + name


def new_pg_journal(test):
    """A fresh database copied from one migrated by the module's own migrate() (once per run)."""
    admin = dj.PgConnection(PG_URL)
    try:
        if not _pg_template:
            template = f"py_template_{uuid.uuid4().hex[:8]}"
            admin.execute(f"CREATE DATABASE {template}")
            dj.migrate(_pg_database_url(template), MIGRATIONS)
            _pg_template.append(template)
        name = f"py_{uuid.uuid4().hex[:12]}"
        admin.execute(f"CREATE DATABASE {name} TEMPLATE {_pg_template[0]}")
    finally:
        admin.close()
    return _pg_database_url(name)


def connect(journal):
    """A second connection, as the console or a person would open one (autocommit)."""
    if dj.is_postgres_url(journal):
        return dj.PgConnection(journal)
    return sqlite3.connect(journal, isolation_level=None)


# What either engine raises for a statement the journal refuses.
DATABASE_ERRORS = (sqlite3.DatabaseError, dj.PgError)


def new_journal(test):
    if PG_URL:
        return new_pg_journal(test)
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
    con = connect(file)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def kinds(file, client_order_id):
    return [r[0] for r in rows(file, "SELECT kind FROM order_events WHERE client_order_id = ? ORDER BY id", client_order_id)]
