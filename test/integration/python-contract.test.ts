/**
 * The Python writer (clients/python/driftwatch_journal.py) against the contract as the TypeScript
 * side defines it: the schema version it writes is the newest migration's, its vocabulary is
 * lib/journal/contract.ts's, and its client order ids and quantity text equal lib/journal's for
 * every double, including the awkward ones. A contract change the module does not follow fails here.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BUSY_TIMEOUT_MS, latestSchemaVersion } from "@/lib/db/journal-file";
import { RECONCILE_STRATEGY } from "@/lib/bot/journal-writer";
import { clientOrderId } from "@/lib/journal/client-order-id";
import { ORDER_STATES, SETTLED_STATES } from "@/lib/journal/contract";
import { ALWAYS_DOUBTFUL_STATES } from "@/lib/journal/order-state";
import { formatQty } from "@/lib/journal/qty";
import { migrationFiles, repoRoot } from "../helpers/journal";

const CLIENT = path.join(repoRoot, "clients/python");

function python(script: string, input?: string): string {
  return execFileSync("python3", ["-c", script], { cwd: CLIENT, encoding: "utf8", input });
}

describe("the Python writer's contract", () => {
  it("knows the schema version the newest migration in drizzle/ sets", () => {
    const known = JSON.parse(python("import json, driftwatch_journal as d; print(json.dumps(d.SCHEMA_VERSION))")) as number;
    const newest = migrationFiles().at(-1)!;
    const stamped = /PRAGMA user_version = (\d+);\s*$/.exec(fs.readFileSync(newest, "utf8"));
    expect(stamped, `${newest} ends without PRAGMA user_version`).not.toBeNull();
    // A migration the module does not know: update driftwatch_journal.py (SCHEMA_VERSION and what it writes).
    expect({ newest: path.basename(newest), version: known }).toEqual({ newest: path.basename(newest), version: Number(stamped![1]) });
    expect(known).toBe(latestSchemaVersion());
  });

  it("writes the contract version the newest drizzle/pg migration stamps in journal_schema", () => {
    const known = JSON.parse(python("import json, driftwatch_journal as d; print(json.dumps(d.SCHEMA_VERSION))")) as number;
    const dir = path.join(repoRoot, "drizzle/pg");
    const newest = fs
      .readdirSync(dir)
      .filter((f) => /^\d{4}_.*\.sql$/.test(f))
      .sort()
      .at(-1)!;
    const stamped = /INSERT INTO "journal_schema".*VALUES \(1, (\d+), (\d+)\)/s.exec(fs.readFileSync(path.join(dir, newest), "utf8"));
    expect(stamped, `${newest} ends without its journal_schema row`).not.toBeNull();
    expect({ newest, version: known }).toEqual({ newest, version: Number(stamped![1]) });
  });

  it("uses the contract's states, strategy name and busy timeout", () => {
    const py = JSON.parse(
      python(
        "import json, driftwatch_journal as d; print(json.dumps([d.ORDER_STATES, d.SETTLED_STATES, d.ALWAYS_DOUBTFUL_STATES, d.RECONCILE_STRATEGY, d.BUSY_TIMEOUT_MS]))",
      ),
    ) as unknown[];
    expect(py).toEqual([[...ORDER_STATES], [...SETTLED_STATES], [...ALWAYS_DOUBTFUL_STATES], RECONCILE_STRATEGY, BUSY_TIMEOUT_MS]);
  });

  it("gives the same quantity text and client order id as lib/journal for thousands of doubles", () => {
    // Awkward by hand, then random doubles over every magnitude a quantity can have and beyond.
    const qtys = [1e-5, 0.1 + 0.2, 1e21, 1e-7, 5e-324, Number.MAX_VALUE, 0.3, 1 / 3, 2 / 3, 123456789.123, 9007199254740993, 1e-6, 1.5e-6, 1e20];
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 3000; i++) qtys.push(random() * 10 ** Math.floor(random() * 40 - 20));
    for (let i = 0; i < 500; i++) qtys.push(Math.round(random() * 1e6) / 10 ** Math.floor(random() * 9));
    const cases = qtys.filter((q) => q > 0).map((q) => ({ qty: q, bar: "2026-08-10T15:30:00.000Z" }));
    const out = JSON.parse(
      python(
        "import json, sys, driftwatch_journal as d\n" +
          "cases = json.load(sys.stdin)\n" +
          "print(json.dumps([[d.format_qty(c['qty']), d.client_order_id('q500', 'media_movil', 'AAPL', 'buy', c['qty'], c['bar'])] for c in cases]))",
        JSON.stringify(cases),
      ),
    ) as [string, string][];
    const expected = cases.map((c) => [
      formatQty(c.qty),
      clientOrderId("q500", { strategy: "media_movil", symbol: "AAPL", side: "buy", qty: c.qty, bar: c.bar }),
    ]);
    expect(out).toEqual(expected);
    expect(out[0]).toEqual(["0.00001", expect.stringMatching(/^q500-[0-9a-f]{20}$/)]);
  });
});
