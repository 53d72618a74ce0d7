import os
import subprocess
import sys
import unittest

from helpers import HERE, rows, temp_dir


class ExampleBotTest(unittest.TestCase):
    def test_the_example_bot_runs_and_settles_its_lost_reply_by_a_lookup(self):
        file = os.path.join(temp_dir(self), "journal.db")
        out = subprocess.run([sys.executable, os.path.join(HERE, "..", "example_bot.py"), file], capture_output=True, text=True, check=True).stdout
        self.assertEqual(len(out.splitlines()), 5)
        # The run says which order's reply was lost and how it was settled.
        self.assertTrue(out.splitlines()[0].endswith("(its reply was lost: a lookup found it, nothing resent)"), out)
        self.assertNotIn("reply was lost", "\n".join(out.splitlines()[1:]))
        self.assertEqual(rows(file, "SELECT count(*), sum(attempts) FROM orders WHERE state = 'filled'"), [(5, 5)])
        first = rows(file, "SELECT client_order_id FROM orders ORDER BY created_at LIMIT 1")[0][0]
        self.assertEqual([r[0] for r in rows(file, "SELECT kind FROM order_events WHERE client_order_id = ? ORDER BY id", first)], ["intent", "timeout", "lookup_found"])
        self.assertEqual(rows(file, "SELECT DISTINCT outcome FROM reconciliations"), [("clean",)])


if __name__ == "__main__":
    unittest.main()
