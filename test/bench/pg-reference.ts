/**
 * Bench rows of issue 15, step 2: the 20-day reference journal on PostgreSQL beside SQLite. A
 * throwaway PostgreSQL server (tools/lib/postgres-server.ts) is migrated (drizzle/pg), the
 * reference journal is copied into it with COPY (tools/lib/pg-copy.ts; the SQLite file is opened
 * read-only), and the overview's and the doubtful list's loaders (the ones the pages and the JSON
 * routes call, lib/queries/screens.ts) run --runs times on each engine, in turns, in this process:
 * the engines' read cost, without HTTP or rendering.
 *
 *   flock /tmp/driftwatch-bench.lock npx tsx --conditions=react-server test/bench/pg-reference.ts [--journal FILE] [--runs 40]
 *
 * Prints the load time per table, then p50 / p90 per engine and screen, and the load average.
 * It lives under test/ and runs with the react-server condition because it calls the screens'
 * loaders directly, and those are "server-only" modules (test/unit/server-only.test.ts keeps them
 * out of what scripts/ and tools/ load).
 */
import os from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { JournalSource } from "../../lib/db/console";
import { migratePgJournal } from "../../lib/db/pg-journal";
import { PgJournalSource } from "../../lib/db/pg-source";
import { loadDoubtfulOrders, loadOverview } from "../../lib/queries/screens";
import { anyEngine, readScreen, type AnyEngineLoad } from "../../lib/queries/read";
import { copySqliteJournalToPg } from "../../tools/lib/pg-copy";
import { startPostgres } from "../../tools/lib/postgres-server";

const { values: args } = parseArgs({
  options: { journal: { type: "string", default: "/work/main/.bench/reference-20d.sqlite" }, runs: { type: "string", default: "40" } },
});
const runs = Number(args.runs);
const say = (line: string) => console.log(`[pg-bench] ${line}`);
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

async function main() {
  const server = await startPostgres({ label: "pg-bench" });
  say(`PostgreSQL up in ${Math.round(server.startMs)} ms on port ${server.port}; load ${load()}`);
  const pgSource = new PgJournalSource({ name: "pg", kind: "postgres", file: server.url, passwordEnv: null, password: () => undefined });
  const sqlite = new JournalSource(args.journal!);
  try {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await migratePgJournal(client);
    await client.end();
    say(`copying ${args.journal} (read-only) with COPY; load ${load()}`);
    const copied = await copySqliteJournalToPg(args.journal!, server.url, say);
    say(`copied in ${(copied.totalMs / 1000).toFixed(1)} s; load ${load()}`);

    const overview = anyEngine((ctx) => loadOverview({ ...ctx, names: true }));
    const doubtful = anyEngine((ctx) => loadDoubtfulOrders({ ...ctx, names: true, botId: null }));
    const screens: Record<string, AnyEngineLoad<unknown>> = { overview, doubtful };
    const engines = { sqlite, postgres: pgSource } as const;
    const times: Record<string, number[]> = {};
    // Warm both (caches, prepared statements, the pool's connections), then measure in turns.
    for (const s of Object.values(screens)) for (const e of Object.values(engines)) for (let i = 0; i < 3; i++) await readScreen(s, e);
    for (let i = 0; i < runs; i++) {
      for (const [sn, s] of Object.entries(screens)) {
        for (const [en, e] of Object.entries(engines)) {
          const t0 = performance.now();
          const read = await readScreen(s, e);
          const ms = performance.now() - t0;
          if (!read.ok) throw new Error(`${en} ${sn}: ${read.error.message}`);
          (times[`${sn} on ${en}`] ??= []).push(ms);
        }
      }
    }
    for (const [k, xs] of Object.entries(times))
      say(`${k}: p50 ${quantile(xs, 0.5).toFixed(2)} ms, p90 ${quantile(xs, 0.9).toFixed(2)} ms (${xs.length} reads)`);
    say(`load average at the end: ${load()}`);
  } finally {
    sqlite.close();
    pgSource.close();
    await server.stop();
  }
}

await main();
