// The whole test run, as CI runs it: lint, format, dead exports, types, migrations up to date, unit + integration tests
// on real SQLite files, the Python client's own unittest suite (Debian's python3), a production build, a 60-second soak of that build beside a fast bot
// (counted as one test), and browser tests in real Chromium. Every step runs
// even after a failure (except the browser tests without a build), and the last line counts the
// tests: "tests: N passed, N failed".
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Every temporary journal, console and database of the run goes under one folder (TMPDIR: Node's
// os.tmpdir(), Python's tempfile and PostgreSQL's initdb all honour it), removed when the run
// passes. Before, each run left about 1,900 folders and 600 MB in /tmp. A failed run keeps them
// for whoever looks into it, and says where.
const runTmp = fs.mkdtempSync(path.join(os.tmpdir(), "driftwatch-test-run-"));
// Others may pass through (not list): PostgreSQL runs as `postgres` in a folder of its own in here.
fs.chmodSync(runTmp, 0o711);
const env = { ...process.env, TMPDIR: runTmp, NEXT_TELEMETRY_DISABLED: "1", FORCE_COLOR: process.env.CI ? "0" : "1" };
const bin = (name) => `node_modules/.bin/${name}`;
fs.mkdirSync("test-results", { recursive: true });
for (const f of ["test-results/vitest.json", "test-results/python.json", "test-results/e2e.json"]) fs.rmSync(f, { force: true });

const steps = [
  { name: "lint", run: [[bin("eslint"), "."]] },
  { name: "format", run: [[bin("prettier"), "--check", "."]] },
  { name: "dead exports", run: [[bin("knip"), "--no-progress"]] },
  {
    name: "typecheck",
    run: [
      [bin("next"), "typegen"],
      [bin("tsc"), "--noEmit"],
    ],
  },
  { name: "migrations up to date", run: [["node", "scripts/check-drizzle.mjs"]] },
  {
    name: "unit + integration tests",
    run: [[bin("vitest"), "run", "--reporter=default", "--reporter=json", "--outputFile.json=test-results/vitest.json"]],
  },
  // The Python journal writer (clients/python), tested by Python's own unittest; it writes its counts as JSON.
  { name: "python client tests", run: [["python3", "clients/python/tests/run.py", "test-results/python.json"]] },
  { name: "build", run: [[bin("next"), "build"]] },
  // One test: passes only with no row or action lost, no SQLITE_BUSY at the bot and a verified audit chain.
  { name: "soak (60 s)", needs: "build", test: true, run: [[bin("tsx"), "scripts/soak.ts", "--seconds", "60"]] },
  { name: "browser tests", needs: "build", run: [[bin("playwright"), "test"]] },
];

const failed = [];
const ran = [];
for (const step of steps) {
  if (step.needs && failed.includes(step.needs)) {
    console.log(`\n=== ${step.name}: not run, ${step.needs} failed`);
    failed.push(step.name);
    continue;
  }
  console.log(`\n=== ${step.name}`);
  const started = Date.now();
  let ok = true;
  for (const [cmd, ...args] of step.run) {
    const r = spawnSync(cmd, args, { stdio: "inherit", env });
    if (r.status !== 0) {
      ok = false;
      break;
    }
  }
  console.log(`=== ${step.name}: ${ok ? "ok" : "FAILED"} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (!ok) failed.push(step.name);
  ran.push(step.name);
}

const readJson = (f) => (fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, "utf8")) : null);
let passed = 0;
let failedTests = 0;
let skipped = 0;
const vitest = readJson("test-results/vitest.json");
if (vitest) {
  passed += vitest.numPassedTests;
  failedTests += vitest.numFailedTests;
  skipped += vitest.numPendingTests + vitest.numTodoTests;
}
const python = readJson("test-results/python.json");
if (python) {
  passed += python.passed;
  failedTests += python.failed;
  skipped += python.skipped;
}
const e2e = readJson("test-results/e2e.json");
if (e2e) {
  passed += e2e.stats.expected + e2e.stats.flaky;
  failedTests += e2e.stats.unexpected;
  skipped += e2e.stats.skipped;
}
// A step that is itself one test (the soak) counts as one pass; its failure is counted below.
for (const step of steps) if (step.test && ran.includes(step.name) && !failed.includes(step.name)) passed += 1;
if (!vitest) console.log("no unit/integration results were written");
if (!python) console.log("no python client test results were written");
if (!e2e) console.log("no browser test results were written");
if (failed.length > 0) console.log(`\nfailed steps: ${failed.join(", ")}`);
// The failing tests by name, again at the end: a log cut to its last lines (CI's) still says which.
const failedNames = [];
for (const file of vitest?.testResults ?? [])
  for (const t of file.assertionResults ?? [])
    if (t.status === "failed")
      failedNames.push(
        `${file.name.replace(`${process.cwd()}/`, "")} › ${t.fullName ?? t.title}: ${(t.failureMessages?.[0] ?? "").split("\n")[0].slice(0, 300)}`,
      );
const e2eFailed = (suite, titles) => {
  for (const spec of suite.specs ?? [])
    for (const t of spec.tests ?? []) if (t.status === "unexpected") failedNames.push(`${spec.file}:${spec.line} › ${[...titles, spec.title].join(" › ")}`);
  for (const child of suite.suites ?? []) e2eFailed(child, [...titles, child.title]);
};
for (const suite of e2e?.suites ?? []) e2eFailed(suite, []);
for (const name of python?.failures ?? []) failedNames.push(`python › ${name}`);
if (failedNames.length > 0) console.log(`\nfailed tests:\n${failedNames.map((n) => `  ${n}`).join("\n")}`);
// A failed check that is not a test (lint, types, migrations, build), or a test step that crashed
// before writing results, counts as one failure each: the closing line must never read as a pass.
const testSteps = {
  "unit + integration tests": vitest && vitest.numFailedTests,
  "python client tests": python && python.failed,
  "browser tests": e2e && e2e.stats.unexpected,
};
for (const name of failed) {
  // null: the step wrote no results; 0: it failed without a failing test. Either counts as one failure.
  if (!(name in testSteps) || !testSteps[name]) failedTests += 1;
}
const runFailed = failed.length > 0 || failedTests > 0;
if (runFailed) console.log(`\nthe run's temporary files are kept in ${runTmp}`);
else fs.rmSync(runTmp, { recursive: true, force: true });
console.log(`\ntests: ${passed} passed, ${failedTests} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(runFailed ? 1 : 0);
