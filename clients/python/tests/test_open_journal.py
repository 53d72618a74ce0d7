import os
import shutil
import sqlite3
import unittest

from helpers import MIGRATIONS, dj, new_journal, temp_dir


class OpenJournalTest(unittest.TestCase):
    def test_opens_a_migrated_journal_in_wal_with_a_busy_timeout_and_full_sync(self):
        con = dj.open_journal(new_journal(self))
        self.assertEqual(con.execute("PRAGMA journal_mode").fetchone()[0], "wal")
        self.assertEqual(con.execute("PRAGMA busy_timeout").fetchone()[0], 5000)
        self.assertEqual(con.execute("PRAGMA synchronous").fetchone()[0], 2)
        self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0], dj.SCHEMA_VERSION)
        con.close()

    def test_migrate_is_safe_to_run_twice(self):
        file = new_journal(self)
        again = dj.migrate(file, MIGRATIONS)
        self.assertEqual((again["from"], again["to"], again["applied"]), (dj.SCHEMA_VERSION, dj.SCHEMA_VERSION, []))

    def test_upgrades_an_older_journal_from_its_version_on(self):
        folder = temp_dir(self)
        partial = os.path.join(folder, "drizzle")
        os.mkdir(partial)
        for name in sorted(os.listdir(MIGRATIONS))[:3]:
            if name.endswith(".sql"):
                shutil.copy(os.path.join(MIGRATIONS, name), partial)
        file = os.path.join(folder, "journal.db")
        first = dj.migrate(file, partial)
        with self.assertRaises(dj.JournalError) as older:
            dj.open_journal(file)
        self.assertEqual(older.exception.code, "older_schema")
        self.assertIn(file, str(older.exception))
        self.assertIn("Fix:", str(older.exception))
        rest = dj.migrate(file, MIGRATIONS)
        self.assertEqual(rest["from"], first["to"])
        self.assertEqual(rest["to"], dj.SCHEMA_VERSION)
        dj.open_journal(file).close()

    def test_refuses_a_newer_journal_a_missing_file_and_a_file_that_is_not_sqlite(self):
        file = new_journal(self)
        con = sqlite3.connect(file)
        con.execute(f"PRAGMA user_version = {dj.SCHEMA_VERSION + 1}")
        con.close()
        with self.assertRaises(dj.JournalError) as newer:
            dj.open_journal(file)
        self.assertEqual(newer.exception.code, "future_schema")
        self.assertIn("newer than this driftwatch_journal.py knows", str(newer.exception))

        missing = os.path.join(temp_dir(self), "nope.db")
        with self.assertRaises(dj.JournalError) as gone:
            dj.open_journal(missing)
        self.assertEqual(gone.exception.code, "missing")
        self.assertFalse(os.path.exists(missing), "opening must not create an empty journal")

        junk = os.path.join(temp_dir(self), "junk.db")
        with open(junk, "wb") as f:
            f.write(b"this is not a database, just text long enough to fill a header" * 20)
        with self.assertRaises(dj.JournalError) as not_sqlite:
            dj.open_journal(junk)
        self.assertEqual(not_sqlite.exception.code, "not_sqlite")

    def test_refuses_a_journal_without_schema(self):
        empty = os.path.join(temp_dir(self), "empty.db")
        sqlite3.connect(empty).close()
        with self.assertRaises(dj.JournalError) as none:
            dj.open_journal(empty)
        self.assertEqual(none.exception.code, "no_schema")

    def test_refuses_to_migrate_past_the_contract_version_it_knows(self):
        folder = temp_dir(self)
        ahead = os.path.join(folder, "drizzle")
        shutil.copytree(MIGRATIONS, ahead)
        n = len([f for f in os.listdir(ahead) if f.endswith(".sql")])
        with open(os.path.join(ahead, f"{n:04d}_future.sql"), "w") as f:
            f.write(f"CREATE TABLE future (x);\nPRAGMA user_version = {n + 1};\n")
        file = os.path.join(folder, "journal.db")
        with self.assertRaises(dj.JournalError) as refused:
            dj.migrate(file, ahead)
        self.assertEqual(refused.exception.code, "future_schema")
        self.assertFalse(os.path.exists(file), "a refused migration creates nothing")

    def test_a_failing_migration_changes_nothing(self):
        folder = temp_dir(self)
        broken = os.path.join(folder, "drizzle")
        os.mkdir(broken)
        with open(os.path.join(broken, "0000_broken.sql"), "w") as f:
            f.write("CREATE TABLE ok (x);\n--> statement-breakpoint\nCREATE TABLE ok (x);\nPRAGMA user_version = 1;\n")
        file = os.path.join(folder, "journal.db")
        with self.assertRaises(RuntimeError):
            dj.migrate(file, broken)
        con = sqlite3.connect(file)
        self.assertEqual(con.execute("SELECT count(*) FROM sqlite_master WHERE name = 'ok'").fetchone()[0], 0)
        self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0], 0)
        con.close()

    def test_the_writer_refuses_a_connection_with_implicit_transactions(self):
        con = sqlite3.connect(new_journal(self))
        with self.assertRaises(ValueError):
            dj.JournalWriter(con, bot_id="a", prefix="a", exchange="x")
        con.close()


if __name__ == "__main__":
    unittest.main()
