"""Runs the Python client's unittest suite; with a file argument, also writes the counts there as JSON
({"passed", "failed", "skipped", "failures": [test ids]}) for scripts/test.mjs's closing lines. Exit 0 only when all pass."""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped) + len(result.expectedFailures)
    failures = [test.id() for test, _ in result.failures + result.errors] + [test.id() for test in result.unexpectedSuccesses]
    counts = {"passed": result.testsRun - failed - skipped, "failed": failed, "skipped": skipped, "failures": failures}
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump(counts, f)
    print(f"python tests: {counts['passed']} passed, {counts['failed']} failed")
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
