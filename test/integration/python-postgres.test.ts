/**
 * The Python module on PostgreSQL (clients/python): one real server for this file, with one login
 * per password method in pg_hba (scram-sha-256, md5, cleartext password) beside the trusted
 * superuser. Runs the module's wire-protocol tests (clients/python/tests/pg_wire_tests.py) and
 * then the writer's own tests on PostgreSQL journals (helpers.py makes each journal a
 * fresh database when DRIFTWATCH_TEST_PG_URL is set). The same tests run on SQLite files in
 * `python3 clients/python/tests/run.py`.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/journal";
import { postgresAvailable, startPostgres, type PostgresServer } from "../helpers/postgres";
import { selfSignedCertificate } from "@/tools/lib/postgres-server";

const run = promisify(execFile);
const TESTS = path.join(repoRoot, "clients/python/tests");

describe.skipIf(!postgresAvailable)("the Python module on a real PostgreSQL server", () => {
  let server: PostgresServer;
  let otherCa: string;
  beforeAll(async () => {
    server = await startPostgres({
      label: "python-postgres",
      users: [
        { name: "scram_user", password: "s3cr'et ü:@/", auth: "scram-sha-256" },
        { name: "md5_user", password: "md5 pass", auth: "md5" },
        { name: "password_user", password: "clear-pass", auth: "password" },
        { name: "tls_user", password: "tls only pass", auth: "scram-sha-256", tlsOnly: true },
        { name: "plain_user", password: "plain only pass", auth: "scram-sha-256", plainOnly: true },
      ],
      tls: true,
    });
    // A certificate nobody signed the server's with: verifying by it must fail.
    otherCa = path.join(tempDir("other-ca"), "other.crt");
    await selfSignedCertificate(otherCa, `${otherCa}.key`);
    console.log(`PostgreSQL initdb + start (python-postgres): ${server.startMs.toFixed(0)} ms`);
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  const python = async (modules: string[]) => {
    const env = {
      ...process.env,
      DRIFTWATCH_TEST_PG_URL: server.url,
      DRIFTWATCH_TEST_PG_SCRAM_URL: server.userUrls.scram_user!,
      DRIFTWATCH_TEST_PG_MD5_URL: server.userUrls.md5_user!,
      DRIFTWATCH_TEST_PG_PASSWORD_URL: server.userUrls.password_user!,
      DRIFTWATCH_TEST_PG_TLS_URL: server.userUrls.tls_user!,
      DRIFTWATCH_TEST_PG_PLAIN_URL: server.userUrls.plain_user!,
      DRIFTWATCH_TEST_PG_CA: server.caFile!,
      DRIFTWATCH_TEST_PG_OTHER_CA: otherCa,
    };
    const out = await run("python3", ["-m", "unittest", "-v", ...modules], { cwd: TESTS, env, encoding: "utf8" }).catch((error: { stderr?: string }) => {
      throw new Error(`python tests failed:\n${error.stderr ?? String(error)}`);
    });
    const ran = /Ran (\d+) tests?/.exec(out.stderr);
    expect(out.stderr).toMatch(/\nOK\s*$/);
    return Number(ran?.[1] ?? 0);
  };

  it("logs in by trust, cleartext, md5 and SCRAM-SHA-256, over TLS by sslmode; parameters, SQLSTATE errors, transactions, journal errors, concurrent migrators", async () => {
    expect(await python(["pg_wire_tests"])).toBeGreaterThanOrEqual(21);
  });

  it("passes the writer's own tests (send once, reconcile, a writer process killed mid-send and mid-transaction) on PostgreSQL journals", async () => {
    expect(await python(["test_send_once", "test_reconcile", "test_killed_writer"])).toBeGreaterThanOrEqual(22);
  });
});
