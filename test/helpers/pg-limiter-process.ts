/**
 * A console process's sign-in limiter, in a process of its own, on a shared PostgreSQL store: runs
 * batches of sign-in attempts that all fail (each `parallel` at once, at the instant `now`), after
 * waiting for `startAt` when given, and prints what each was told.
 *   tsx test/helpers/pg-limiter-process.ts <database-url> <plan-json>
 */
import pg from "pg";
import { PgLoginRateLimiter } from "../../lib/auth/pg-rate-limit";

interface Plan {
  startAt?: number;
  batches: { keys: string[]; now: number; parallel?: number }[];
}

const [url, planJson] = process.argv.slice(2) as [string, string];
const plan = JSON.parse(planJson) as Plan;
const pool = new pg.Pool({ connectionString: url, max: 5 });
const limiter = new PgLoginRateLimiter(pool);
// Set up before the line: the race is about the attempts, not the connections.
await limiter.ensureSchema();
await Promise.all(Array.from({ length: 5 }, () => pool.connect())).then((cs) => cs.forEach((c) => c.release()));
while (plan.startAt !== undefined && Date.now() < plan.startAt) {
  // spin: both processes leave the line within microseconds of each other
}
const answers = [];
for (const b of plan.batches) {
  const batch = await Promise.all(Array.from({ length: b.parallel ?? 1 }, () => limiter.begin(b.keys, b.now)));
  answers.push(...batch.map((a) => (a.ok ? { ok: true } : { ok: false, retryAfterMs: a.retryAfterMs })));
}
await pool.end();
process.stdout.write(JSON.stringify(answers));
