"""The module's PostgreSQL wire-protocol client against a real server: every authentication method
(trust, cleartext, md5, SCRAM-SHA-256), parameters that come back as the values sent, errors with
their SQLSTATE, transactions, and the journal errors of open_journal and migrate.

Not collected by run.py: test/integration/python-postgres.test.ts starts the server (with one user
per password method) and runs this file with DRIFTWATCH_TEST_PG_URL (the trusted superuser) and
DRIFTWATCH_TEST_PG_{SCRAM,MD5,PASSWORD}_URL set."""

import math
import os
import socket
import threading
import unittest
import uuid
from decimal import Decimal

from helpers import MIGRATIONS, dj, new_pg_journal

URL = os.environ["DRIFTWATCH_TEST_PG_URL"]
BY_METHOD = {m: os.environ[f"DRIFTWATCH_TEST_PG_{m.upper()}_URL"] for m in ("scram", "md5", "password")}
# A user the server lets in over TLS only, the server's own certificate, and another that did not sign it.
TLS_URL = os.environ["DRIFTWATCH_TEST_PG_TLS_URL"]
# A user the server lets in in the clear only (hostssl … reject): prefer must fall back to the clear for it.
PLAIN_URL = os.environ["DRIFTWATCH_TEST_PG_PLAIN_URL"]
CA = os.environ["DRIFTWATCH_TEST_PG_CA"]
OTHER_CA = os.environ["DRIFTWATCH_TEST_PG_OTHER_CA"]


def with_query(url, **params):
    return url + ("&" if "?" in url else "?") + "&".join(f"{k}={v}" for k, v in params.items())


def database(name):
    return URL.rsplit("/", 1)[0] + "/" + name


def empty_database():
    name = f"wire_{uuid.uuid4().hex[:10]}"
    with dj.PgConnection(URL) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    return database(name)


class Authentication(unittest.TestCase):
    def test_every_method_logs_in_as_its_user(self):
        for method, url in [("trust", URL), *BY_METHOD.items()]:
            with self.subTest(method=method), dj.PgConnection(url) as con:
                user = con.execute("SELECT current_user").fetchone()[0]
                self.assertEqual(user, "postgres" if method == "trust" else f"{method}_user")

    def test_the_server_really_asks_for_scram(self):
        with dj.PgConnection(URL) as con:
            rules = con.execute("SELECT auth_method FROM pg_hba_file_rules WHERE 'scram_user' = ANY(user_name)").fetchall()
        self.assertEqual(rules, [("scram-sha-256",)])

    def test_a_wrong_password_is_refused_with_its_sqlstate_for_every_method(self):
        for method, url in BY_METHOD.items():
            bad = url.replace("@", "x@", 1)
            with self.subTest(method=method):
                with self.assertRaises(dj.PgError) as refused:
                    dj.PgConnection(bad)
                self.assertEqual(refused.exception.sqlstate, "28P01")
                with self.assertRaises(dj.JournalError) as journal:
                    dj.open_journal(bad)
                self.assertEqual(journal.exception.code, "authentication")
                self.assertNotIn(bad.split("//")[1].split("@")[0].split(":")[1], str(journal.exception))  # the password is not echoed

    def test_no_password_for_a_server_that_wants_one_says_so(self):
        without = BY_METHOD["scram"].split("//")[0] + "//scram_user@" + BY_METHOD["scram"].split("@")[1]
        old = os.environ.pop("PGPASSWORD", None)
        try:
            with self.assertRaisesRegex(dj.PgProtocolError, "asks user scram_user for a password"):
                dj.PgConnection(without)
        finally:
            if old is not None:
                os.environ["PGPASSWORD"] = old


class Tls(unittest.TestCase):
    """sslmode as libpq reads it, against a server that speaks TLS with a self-signed certificate."""

    def encrypted(self, con):
        return con.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").fetchone()[0]

    def test_verify_full_checks_the_certificate_and_the_host_and_encrypts(self):
        for host in ("127.0.0.1", "localhost"):
            url = with_query(TLS_URL.replace("127.0.0.1", host), sslmode="verify-full", sslrootcert=CA)
            with self.subTest(host=host), dj.PgConnection(url) as con:
                self.assertTrue(con.tls)
                self.assertTrue(self.encrypted(con))
                self.assertEqual(con.execute("SELECT current_user").fetchone()[0], "tls_user")

    def test_a_certificate_another_ca_signed_is_refused_saying_which_check_failed(self):
        for mode in ("verify-ca", "verify-full", "require"):
            with self.subTest(sslmode=mode):
                with self.assertRaises(dj.PgTlsError) as refused:
                    dj.PgConnection(with_query(TLS_URL, sslmode=mode, sslrootcert=OTHER_CA))
                self.assertIn("was refused", str(refused.exception))
                self.assertIn("self-signed certificate", str(refused.exception))  # OpenSSL's verify message: not the CA given
                with self.assertRaises(dj.JournalError) as journal:
                    dj.open_journal(with_query(TLS_URL, sslmode=mode, sslrootcert=OTHER_CA))
                self.assertEqual(journal.exception.code, "tls")
                self.assertIn("sslrootcert", str(journal.exception))

    def test_require_and_prefer_encrypt_without_a_root_certificate(self):
        for mode in ("require", "prefer"):
            with self.subTest(sslmode=mode), dj.PgConnection(with_query(TLS_URL, sslmode=mode)) as con:
                self.assertTrue(self.encrypted(con))
        # prefer is the default: a TLS server gets TLS without asking.
        with dj.PgConnection(URL) as con:
            self.assertTrue(con.tls)

    def test_a_user_the_server_admits_over_tls_only_is_refused_in_the_clear_and_allow_retries_with_tls(self):
        with self.assertRaises(dj.PgError) as refused:
            dj.PgConnection(with_query(TLS_URL, sslmode="disable"))
        self.assertEqual(refused.exception.sqlstate, "28000")  # no pg_hba.conf entry (hostnossl … reject)
        # allow: the clear first, refused, then a new connection with TLS (libpq's fallback).
        with dj.PgConnection(with_query(TLS_URL, sslmode="allow")) as con:
            self.assertTrue(con.tls)
            self.assertTrue(self.encrypted(con))

    def test_a_user_the_server_admits_in_the_clear_only_gets_the_clear_from_prefer_and_allow_and_is_refused_by_require(self):
        for mode in ("prefer", "allow", "disable"):
            with self.subTest(sslmode=mode), dj.PgConnection(with_query(PLAIN_URL, sslmode=mode)) as con:
                self.assertFalse(con.tls)
                self.assertFalse(self.encrypted(con))
                self.assertEqual(con.execute("SELECT current_user").fetchone()[0], "plain_user")
        with self.assertRaises(dj.PgError) as refused:
            dj.PgConnection(with_query(PLAIN_URL, sslmode="require"))
        self.assertEqual(refused.exception.sqlstate, "28000")

    def test_a_server_without_tls_is_a_tls_error_for_require_not_unreachable(self):
        # A listener that answers the TLS request with N, as a server with ssl=off does, then closes.
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]

        def answer():
            con, _ = listener.accept()
            con.recv(8)
            con.sendall(b"N")
            con.close()

        thread = threading.Thread(target=answer, daemon=True)
        thread.start()
        try:
            with self.assertRaises(dj.JournalError) as journal:
                dj.open_journal(f"postgresql://u@127.0.0.1:{port}/journal?sslmode=require&connect_timeout=5")
            self.assertEqual(journal.exception.code, "tls")
            self.assertIn("does not accept TLS connections", str(journal.exception))
        finally:
            thread.join(5)
            listener.close()

    def test_a_setting_that_cannot_work_is_a_clear_error_before_any_connection(self):
        with self.assertRaises(ValueError) as no_root:
            dj.PgConnection(with_query(TLS_URL, sslmode="verify-full"))
        self.assertIn("sslrootcert", str(no_root.exception))
        with self.assertRaises(ValueError) as unknown:
            dj.PgConnection(with_query(TLS_URL, sslmode="required"))
        self.assertIn("verify-full", str(unknown.exception))
        with self.assertRaises(ValueError) as missing:
            dj.PgConnection(with_query(TLS_URL, sslmode="verify-ca", sslrootcert="/nonexistent/ca.crt"))
        self.assertIn("is not a file", str(missing.exception))
        with self.assertRaises(ValueError) as not_a_certificate:
            dj.PgConnection(with_query(TLS_URL, sslmode="verify-full", sslrootcert=__file__))
        self.assertIn("cannot be used as the CA certificate", str(not_a_certificate.exception))
        # open_journal says the same as a JournalError, as every other opening error.
        for query in (
            {"sslmode": "verify-full"},
            {"sslmode": "required"},
            {"sslmode": "verify-full", "sslrootcert": "/nonexistent/ca.crt"},
            {"sslmode": "verify-ca", "sslrootcert": __file__},
        ):
            with self.subTest(**query):
                with self.assertRaises(dj.JournalError) as journal:
                    dj.open_journal(with_query(TLS_URL, **query))
                self.assertEqual(journal.exception.code, "tls")

    def test_a_journal_migrates_and_opens_over_verify_full(self):
        name = empty_database().rsplit("/", 1)[1]
        url = with_query(TLS_URL.rsplit("/", 1)[0] + "/" + name, sslmode="verify-full", sslrootcert=CA)
        self.assertEqual(dj.migrate(url, MIGRATIONS)["to"], dj.SCHEMA_VERSION)
        journal = dj.open_journal(url)
        try:
            self.assertTrue(journal.tls)
        finally:
            journal.close()


class Queries(unittest.TestCase):
    def setUp(self):
        self.con = dj.PgConnection(URL)
        self.addCleanup(self.con.close)

    def test_parameters_come_back_as_the_values_sent(self):
        values = [
            (None, "text"),
            (True, "boolean"),
            (False, "boolean"),
            (0, "bigint"),
            (-(2**63), "bigint"),
            (2**63 - 1, "bigint"),
            (0.1 + 0.2, "double precision"),
            (5e-324, "double precision"),
            (1.7976931348623157e308, "double precision"),
            (1 / 3, "double precision"),
            (math.inf, "double precision"),
            (Decimal("1.10"), "numeric"),
            ("x'y\"; DROP TABLE pg_class; -- ?", "text"),
            ("ü 🙂 \\ $1", "text"),
            (b"\x00\xff\x01", "bytea"),
        ]
        for value, type_ in values:
            with self.subTest(value=value):
                self.assertEqual(self.con.execute(f"SELECT ?::{type_}", (value,)).fetchone(), (value,))
        nan = self.con.execute("SELECT ?::double precision", (math.nan,)).fetchone()[0]
        self.assertTrue(math.isnan(nan))

    def test_a_question_mark_inside_quotes_is_text_not_a_parameter(self):
        self.assertEqual(self.con.execute("SELECT '?' AS q, ?::int AS p, \"?\" FROM (SELECT 1 AS \"?\") t", (7,)).fetchone(), ("?", 7, 1))

    def test_a_nul_character_is_refused_before_anything_is_sent(self):
        with self.assertRaises(ValueError):
            self.con.execute("SELECT ?::text", ("a\x00b",))
        self.assertEqual(self.con.execute("SELECT 1").fetchone(), (1,))

    def test_many_rows_across_many_reads(self):
        rows = self.con.execute("SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g").fetchall()
        self.assertEqual(len(rows), 20000)
        self.assertEqual(rows[-1], (20000, "x" * 100))

    def test_errors_carry_their_sqlstate_and_the_connection_stays_usable(self):
        with self.assertRaises(dj.PgError) as syntax:
            self.con.execute("SELEC 1")
        self.assertEqual(syntax.exception.sqlstate, "42601")
        with self.assertRaises(dj.PgError) as missing:
            self.con.execute("SELECT * FROM no_such_table")
        self.assertEqual(missing.exception.sqlstate, "42P01")
        self.assertEqual(self.con.execute("SELECT 2").fetchone(), (2,))

    def test_transactions_commit_roll_back_and_fail_whole(self):
        self.con.execute("CREATE TEMP TABLE t (k text PRIMARY KEY)")
        self.assertFalse(self.con.in_transaction)
        self.con.execute("BEGIN")
        self.assertTrue(self.con.in_transaction)
        self.con.execute("INSERT INTO t VALUES (?)", ("a",))
        self.con.execute("ROLLBACK")
        self.assertEqual(self.con.execute("SELECT count(*) FROM t").fetchone(), (0,))
        self.con.execute("BEGIN")
        self.assertEqual(self.con.execute("INSERT INTO t VALUES (?), (?)", ("a", "b")).rowcount, 2)
        with self.assertRaises(dj.PgError) as dup:
            self.con.execute("INSERT INTO t VALUES (?)", ("a",))
        self.assertEqual(dup.exception.sqlstate, "23505")
        self.assertTrue(self.con.in_transaction)  # failed, waiting for the ROLLBACK
        with self.assertRaises(dj.PgError) as aborted:
            self.con.execute("SELECT 1")
        self.assertEqual(aborted.exception.sqlstate, "25P02")
        self.con.execute("ROLLBACK")
        self.assertEqual(self.con.execute("SELECT count(*) FROM t").fetchone(), (0,))
        self.assertEqual(self.con.execute("UPDATE t SET k = k").rowcount, 0)


class Journals(unittest.TestCase):
    def test_open_journal_names_each_problem(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            closed_port = s.getsockname()[1]
        cases = [
            (f"postgresql://postgres@127.0.0.1:{closed_port}/x", "unreachable"),
            (database("no_such_database"), "missing"),
            (empty_database(), "no_schema"),
        ]
        for url, code in cases:
            with self.subTest(code=code), self.assertRaises(dj.JournalError) as e:
                dj.open_journal(url)
            self.assertEqual(e.exception.code, code)

    def test_an_older_or_newer_schema_is_refused(self):
        for version, code in [(dj.SCHEMA_VERSION - 1, "older_schema"), (dj.SCHEMA_VERSION + 1, "future_schema")]:
            url = new_pg_journal(self)
            with dj.PgConnection(url) as con:
                con.execute("UPDATE journal_schema SET version = ?", (version,))
            with self.subTest(code=code), self.assertRaises(dj.JournalError) as e:
                dj.open_journal(url)
            self.assertEqual(e.exception.code, code)

    def test_two_migrators_at_once_apply_each_file_once(self):
        url = empty_database()
        results, errors = [], []

        def run():
            try:
                results.append(dj.migrate(url, MIGRATIONS))
            except BaseException as error:  # noqa: BLE001 - reported below
                errors.append(error)

        threads = [threading.Thread(target=run) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        every_file = sorted(f for f in os.listdir(os.path.join(MIGRATIONS, "pg")) if f.endswith(".sql"))
        self.assertEqual(sorted(f for r in results for f in r["applied"]), every_file)
        self.assertEqual({r["to"] for r in results}, {dj.SCHEMA_VERSION})
        dj.open_journal(url).close()

    def test_a_killed_connection_fails_the_call_and_a_new_one_carries_on(self):
        url = new_pg_journal(self)
        w = dj.JournalWriter(dj.open_journal(url), bot_id="bot-a", prefix="q500", exchange="fake")
        w.register()
        with dj.PgConnection(URL) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ?", (url.rsplit("/", 1)[1],))
        with self.assertRaises((OSError, dj.PgProtocolError, dj.PgError)):
            w.register()  # inside _tx: the failed ROLLBACK does not hide what broke it
        again = dj.JournalWriter(dj.open_journal(url), bot_id="bot-a", prefix="q500", exchange="fake")
        again.register()
        self.assertFalse(again.is_halted())

    def test_the_bot_connection_commits_durably_unless_told_normal(self):
        url = new_pg_journal(self)
        with dj.open_journal(url) as con:
            self.assertEqual(con.execute("SHOW synchronous_commit").fetchone(), ("on",))
            self.assertEqual(con.execute("SHOW lock_timeout").fetchone(), ("5s",))
        with dj.open_journal(url, synchronous="NORMAL") as con:
            self.assertEqual(con.execute("SHOW synchronous_commit").fetchone(), ("off",))


if __name__ == "__main__":
    unittest.main()
