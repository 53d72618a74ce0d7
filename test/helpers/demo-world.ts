/**
 * The demo world as the integration tests script it: alpha alone, every symbol on one scripted
 * strategy (the test says when it buys), one-minute bars and ten-second cycles; and the console's
 * "Check on exchange" through the demo's venue gateway, as scripts/demo-bots.ts serves it.
 */
import type { AddressInfo } from "node:net";
import type Database from "better-sqlite3";
import { resolveByLookupSpec } from "@/lib/actions/resolve-order";
import { serveVenueGateway, VenueGatewayClient } from "@/lib/exchange/venue-gateway";
import { demoGatewayAdapters } from "@/tools/demo/bybit-venue";
import { ALPHA, withOverrides } from "@/tools/demo/markets";
import { ScriptedStrategy } from "@/tools/demo/strategies";
import { DemoWorld, type WorldOptions } from "@/tools/demo/world";
import { act, ana, consoleWriter } from "./actions";
import { journalDbOf } from "./console-db";
import { migrationsDir } from "./journal";

export const SCRIPTED_START = new Date("2026-08-10T12:00:00.000Z");

export async function openScriptedAlpha(opts: { file: string } & Pick<WorldOptions, "venueLink" | "onActivity">) {
  const script = new ScriptedStrategy("sma_cross");
  const spec = withOverrides(ALPHA, { strategies: Object.fromEntries(ALPHA.markets.map((m) => [m.symbol, script])) });
  const world = await DemoWorld.open({ seed: 3, start: SCRIPTED_START, specs: [spec], barMs: 60_000, cycleMs: 10_000, migrationsDir, ...opts });
  return { world, script };
}

/**
 * The demo's venue gateway on a loopback port and the console's resolve-by-lookup action asking it,
 * signed in as "ana". `check(id)` presses "Check on exchange" on the order as the journal has it now.
 */
export async function demoCheckOnExchange(world: DemoWorld, cleanups: (() => void | Promise<void>)[]) {
  const venues = await demoGatewayAdapters(world);
  cleanups.push(() => venues.close());
  const gateway = await serveVenueGateway({ adapters: venues.adapters, host: "127.0.0.1", port: 0, token: "demo-gateway-token-16" });
  cleanups.push(() => new Promise<void>((resolve) => gateway.close(() => resolve())));
  const db: Database.Database = consoleWriter(world.file);
  cleanups.push(() => void db.close());
  const spec = resolveByLookupSpec({
    lookup: new VenueGatewayClient(`http://127.0.0.1:${(gateway.address() as AddressInfo).port}`, "demo-gateway-token-16"),
    graceMs: 30_000,
    reader: () => journalDbOf(db),
  });
  return (id: string) => {
    const now = db.prepare(`SELECT state, filled_qty AS filledQty, version FROM orders WHERE client_order_id = ?`).get(id) as {
      state: string;
      filledQty: number;
      version: number;
    };
    return act(db, spec, ana, { clientOrderId: id, version: now.version, seenState: now.state, seenFilledQty: now.filledQty }, world.now());
  };
}
