/**
 * The sign-in limiter shared by several console processes (DRIFTWATCH_LIMITER_URL): each console
 * is a real OS process with its own PgLoginRateLimiter on one real PostgreSQL server, and the
 * failures they see add up, so spreading guesses over the processes behind a balancer gains nothing.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgLoginRateLimiter } from "@/lib/auth/pg-rate-limit";
import { LoginRateLimiter } from "@/lib/auth/rate-limit";
import { freePort } from "@/tools/lib/console-server";
import { repoRoot } from "../helpers/journal";
import { postgresAvailable, startPostgres, type PostgresServer } from "../helpers/postgres";
import { quietPool } from "../helpers/pg-journal";

type Answer = { ok: true } | { ok: false; retryAfterMs: number };
const T0 = Date.parse("2026-12-01T10:00:00.000Z");

function consoleProcess(url: string, plan: { startAt?: number; batches: { keys: string[]; now: number; parallel?: number }[] }): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      path.join(repoRoot, "node_modules/.bin/tsx"),
      ["--conditions=react-server", "test/helpers/pg-limiter-process.ts", url, JSON.stringify(plan)],
      {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`limiter process exited ${code}: ${out}`))));
  });
}

describe.skipIf(!postgresAvailable)("the sign-in limiter shared in PostgreSQL", () => {
  let server: PostgresServer;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPostgres({ label: "pg-limiter" });
    pool = quietPool(server.url, { max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });

  it("failures spread over two console processes hold the account back on both", async () => {
    const alice = (address: string) => ["account:alice", `address:${address}`];
    // Three failures on the first console, two on the second: five in all, each from its own address.
    expect(await consoleProcess(server.url, { batches: [0, 1, 2].map((i) => ({ keys: alice("10.0.0.1"), now: T0 + i })) })).toEqual([
      { ok: true },
      { ok: true },
      { ok: true },
    ]);
    expect(await consoleProcess(server.url, { batches: [3, 4].map((i) => ({ keys: alice("10.0.0.2"), now: T0 + i })) })).toEqual([{ ok: true }, { ok: true }]);
    // Each alone would have let a sixth try through at once; together, both make it wait a second after the last failure.
    const next = { keys: alice("10.0.0.3"), now: T0 + 10 };
    expect(await consoleProcess(server.url, { batches: [next] })).toEqual([{ ok: false, retryAfterMs: 994 }]);
    expect(await consoleProcess(server.url, { batches: [next] })).toEqual([{ ok: false, retryAfterMs: 994 }]);
    // What one process's in-memory limiter alone says after its own three: go ahead.
    const alone = new LoginRateLimiter();
    for (const i of [0, 1, 2]) alone.begin(alice("10.0.0.1"), T0 + i);
    expect(alone.begin(next.keys, next.now).ok).toBe(true);
  });

  it("parallel guesses from two processes at the same instant: exactly five get through", async () => {
    const batch = { keys: ["account:bob"], now: T0, parallel: 5 };
    const startAt = Date.now() + 2_000;
    const answers = (
      await Promise.all([consoleProcess(server.url, { startAt, batches: [batch] }), consoleProcess(server.url, { startAt, batches: [batch] })])
    ).flat();
    expect(answers.filter((a) => a.ok)).toHaveLength(5);
    expect(answers.filter((a) => !a.ok)).toEqual(Array.from({ length: 5 }, () => ({ ok: false, retryAfterMs: 1000 })));
    const limiter = new PgLoginRateLimiter(pool);
    expect(await limiter.failureCount("account:bob", T0)).toBe(5);
  });

  it("a successful sign-in is forgiven on every process, and aged-out failures are gone", async () => {
    const a = new PgLoginRateLimiter(pool);
    const b = new PgLoginRateLimiter(quietPool(server.url, { max: 1 }));
    const keys = ["account:carol", "address:10.1.0.1"];
    for (let i = 0; i < 4; i++) expect((await a.begin(keys, T0 + i)).ok).toBe(true);
    const fifth = await b.begin(keys, T0 + 4);
    expect(fifth.ok).toBe(true);
    if (fifth.ok) await b.succeed(fifth.attempt);
    expect(await a.failureCount("account:carol", T0 + 5)).toBe(4);
    // Four failures: the next attempt, on either, is not held back.
    expect((await a.begin(keys, T0 + 5)).ok).toBe(true);
    // Past the window, the key's row is deleted by the next attempt of anyone.
    const later = T0 + 16 * 60_000;
    expect((await b.begin(["account:dave"], later)).ok).toBe(true);
    const rows = await pool.query(`SELECT key FROM driftwatch_console.sign_in_failures ORDER BY key`);
    expect(rows.rows.map((r) => r.key)).toEqual(["account:dave"]);
    await (b as unknown as { pool: pg.Pool }).pool.end();
  });

  it("with the database unreachable, sign-in stays open under delays counted in the process, and the log says so once", async () => {
    const port = await freePort(); // nothing listens there
    const down = quietPool(`postgresql://postgres@127.0.0.1:${port}/postgres`, { max: 1, connectionTimeoutMillis: 2_000 });
    const lines: string[] = [];
    const limiter = new PgLoginRateLimiter(down, undefined, (line) => lines.push(line));
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await limiter.begin(["account:erin"], T0 + i));
    expect(answers.map((a) => a.ok)).toEqual([true, true, true, true, true, false]);
    expect(answers[5]).toEqual({ ok: false, retryAfterMs: 999 });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/shared sign-in limiter \(DRIFTWATCH_LIMITER_URL\) cannot be reached .*counting failed sign-ins in this process/);
    await down.end();
  });
});
