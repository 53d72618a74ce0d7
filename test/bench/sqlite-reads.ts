/**
 * The SQLite path's cost before and after the read path became asynchronous (issue 15, step 2):
 * the overview's and the doubtful list's loaders, through readScreen as the pages call them, on the
 * reference journal (read-only), in this process, --runs times in turns. `ROOT` is a checkout of
 * driftwatch (this one, or an older commit extracted with git archive), so the same script times
 * both versions' code on the same file.
 *
 *   flock /tmp/driftwatch-bench.lock npx tsx --conditions=react-server test/bench/sqlite-reads.ts ROOT [JOURNAL] [RUNS]
 */
import os from "node:os";
import path from "node:path";

const root = path.resolve(process.argv[2] ?? ".");
const journal = process.argv[3] ?? "/work/main/.bench/reference-20d.sqlite";
const runs = Number(process.argv[4] ?? 200);

const { JournalSource } = (await import(path.join(root, "lib/db/console.ts"))) as typeof import("../../lib/db/console");
const read = (await import(path.join(root, "lib/queries/read.ts"))) as Partial<typeof import("../../lib/queries/read")> & {
  readScreen: (load: unknown, from: unknown) => unknown;
};
const screens = (await import(path.join(root, "lib/queries/screens.ts"))) as typeof import("../../lib/queries/screens");
const mark = <T>(f: T): T => (read.anyEngine ? (read.anyEngine as unknown as (x: T) => T)(f) : f);

const source = new JournalSource(journal);
const loads = {
  overview: mark((ctx: object) => screens.loadOverview({ ...(ctx as Parameters<typeof screens.loadOverview>[0]), names: true })),
  doubtful: mark((ctx: object) => screens.loadDoubtfulOrders({ ...(ctx as Parameters<typeof screens.loadDoubtfulOrders>[0]), names: true, botId: null })),
};
const times: Record<string, number[]> = { overview: [], doubtful: [] };
for (let i = 0; i < 10; i++) for (const l of Object.values(loads)) await read.readScreen(l, source);
for (let i = 0; i < runs; i++) {
  for (const [name, l] of Object.entries(loads)) {
    const t0 = performance.now();
    const r = (await read.readScreen(l, source)) as { ok: boolean };
    times[name]!.push(performance.now() - t0);
    if (!r.ok) throw new Error(`${name} failed`);
  }
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * xs.length)]!;
for (const [name, xs] of Object.entries(times))
  console.log(
    `[sqlite-reads] ${root}: ${name} p50 ${q(xs, 0.5).toFixed(3)} ms, p90 ${q(xs, 0.9).toFixed(3)} ms (${runs} reads); load ${os.loadavg()[0]!.toFixed(2)}`,
  );
source.close();
