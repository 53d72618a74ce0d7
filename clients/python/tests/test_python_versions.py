import ast
import glob
import os
import unittest

from helpers import HERE


class PythonVersionTest(unittest.TestCase):
    def test_the_client_and_its_example_parse_as_python_3_9(self):
        # CI runs Debian's 3.11; bot authors may run 3.9. ast checks the grammar of the older version.
        files = [os.path.join(HERE, "..", "driftwatch_journal.py"), os.path.join(HERE, "..", "example_bot.py"), *glob.glob(os.path.join(HERE, "*.py"))]
        for file in files:
            with self.subTest(file=os.path.basename(file)), open(file, encoding="utf-8") as f:
                ast.parse(f.read(), filename=file, feature_version=(3, 9))

    def test_the_client_imports_only_the_standard_library(self):
        import sys

        with open(os.path.join(HERE, "..", "driftwatch_journal.py"), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        self.assertEqual(sorted(n for n in names if n not in sys.stdlib_module_names and n != "__future__"), [])


if __name__ == "__main__":
    unittest.main()
