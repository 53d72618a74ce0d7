import os
import signal
import subprocess
import sys
import time
import unittest

from helpers import HERE, dj, kinds, new_journal, rows, temp_dir


def run_until_marked(test, file, mode):
    marker = os.path.join(temp_dir(test), "marker")
    child = subprocess.Popen([sys.executable, os.path.join(HERE, "writer_process.py"), file, mode, marker], cwd=HERE)
    try:
        deadline = time.monotonic() + 30
        while not os.path.exists(marker):
            if child.poll() is not None:
                test.fail(f"the writer process exited early ({child.returncode})")
            if time.monotonic() > deadline:
                test.fail("the writer process never reached the marked step")
            time.sleep(0.02)
        with open(marker) as f:
            text = f.read()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    test.assertEqual(child.returncode, -signal.SIGKILL)
    return text


class KilledWriterTest(unittest.TestCase):
    def check_whole(self, file):
        if not dj.is_postgres_url(file):
            self.assertEqual(rows(file, "PRAGMA integrity_check"), [("ok",)])
        # Every order has its intent, every settled one its reply: no half-written step.
        self.assertEqual(rows(file, "SELECT client_order_id FROM orders WHERE client_order_id NOT IN (SELECT client_order_id FROM order_events WHERE kind = 'intent')"), [])
        self.assertEqual(rows(file, "SELECT client_order_id FROM orders WHERE state = 'filled' AND client_order_id NOT IN (SELECT client_order_id FROM order_events WHERE kind = 'send')"), [])

    def test_killed_during_a_send_leaves_the_committed_intent_and_a_lookup_settles_it(self):
        file = new_journal(self)
        text = run_until_marked(self, file, "send")
        hung = text.split()[-1]
        self.check_whole(file)
        self.assertEqual(rows(file, "SELECT count(*) FROM orders WHERE state = 'filled'"), [(19,)])
        self.assertEqual(rows(file, "SELECT state, attempts FROM orders WHERE client_order_id = ?", hung), [("created", 1)])
        self.assertEqual(kinds(file, hung), ["intent"])
        # The next run settles it before anything else: the venue never got it, so it is absent.
        con = dj.open_journal(file)
        w = dj.JournalWriter(con, bot_id="killed", prefix="k", exchange="fake")
        report = w.resolve_doubtful(lambda cid, sym: None)
        self.assertEqual(report.absent, [hung])
        self.assertEqual(kinds(file, hung), ["intent", "lookup_absent"])
        con.close()

    def test_killed_inside_a_transaction_leaves_nothing_of_it(self):
        file = new_journal(self)
        run_until_marked(self, file, "transaction")
        self.check_whole(file)
        self.assertEqual(rows(file, "SELECT count(*) FROM orders"), [(19,)])
        self.assertEqual(rows(file, "SELECT count(*) FROM orders WHERE client_order_id = 'k-uncommitted'"), [(0,)])
        self.assertNotEqual(rows(file, "SELECT heartbeat_at FROM bots WHERE bot_id = 'killed'"), [("uncommitted",)])
        # And the journal is writable again at once: the dead process held no lock.
        con = dj.open_journal(file)
        dj.JournalWriter(con, bot_id="killed", prefix="k", exchange="fake").heartbeat()
        con.close()


if __name__ == "__main__":
    unittest.main()
