/**
 * The live demo's bots: alpha and beta trading on their simulated venues in one process, writing
 * one journal, their timestamps on the wall clock. --speed N makes everything happen N times as
 * often (shorter bars and cycles, the opening act sooner), never makes the clock run ahead: a
 * console rightly calls a bot whose times are in the future unhealthy. Started by
 * scripts/demo.mjs (npm run demo); runnable alone:
 *
 *   node --import tsx scripts/demo-bots.ts --journal data/demo.db [--speed 1] [--seed 1] [--on-call]
 *
 * Each bot trades on its simulated venue served as Bybit V5 REST on loopback: its writer sends,
 * looks up and reads positions through CcxtAdapter with a signed key, as on a real Bybit account.
 *
 * The scenarios' incidents are injected on a schedule, so the console shows a double buy avoided
 * within seconds and a trip within the first minute; after that, benign faults every couple of
 * minutes and an incident now and then. With --on-call, a simulated person clears halts a few
 * minutes after they happen; without it, a halt waits for you.
 *
 * SIGINT or SIGTERM: the current cycle finishes (every write is its own short transaction, never
 * cut in half), the journal is closed, and the process exits 0.
 */
import { parseArgs } from "node:util";
import { openJournalReader } from "../lib/db/journal-file";
import type { Activity } from "../tools/demo/bot";
import { applyFault, randomBenignFault, randomIncident, type DemoFault } from "../tools/demo/faults";
import { SimulatedOnCall } from "../tools/demo/operator";
import { seededRng, subSeed } from "../tools/demo/random";
import { SCENARIOS, type ScenarioName } from "../tools/demo/scenarios";
import { DemoWorld } from "../tools/demo/world";
import { serveVenueGateway } from "../lib/exchange/venue-gateway";
import { demoGatewayAdapters } from "../tools/demo/bybit-venue";

const BAR_MS = 15_000;
const CYCLE_MS = 2_500;
/** However fast the clock, leave the console's reads some room between two cycles. */
const MIN_WALL_INTERVAL_MS = 100;

interface Planned {
  /** Ms after the start, at speed 1. */
  afterMs: number;
  botId: string;
  /** Tried in order until one applies (a partial close needs a position to close). */
  scenarios: ScenarioName[];
}

/**
 * The opening act: each scenario's incident, on a clock a visitor can follow. Both halts a newcomer
 * settles come in the first two minutes: beta's size drift (cleared by correcting its book) and
 * alpha's lost reply that its own lookups cannot settle (a doubtful order, settled with "Check on
 * exchange"). An order fault waits for the bot's next order, and alpha trades every minute or two,
 * so its lost reply is armed early; the in-flight fill comes after it.
 */
const PLAN: Planned[] = [
  { afterMs: 6_000, botId: "beta", scenarios: ["double-buy-avoided"] },
  { afterMs: 10_000, botId: "alpha", scenarios: ["lost-reply-unknown"] },
  { afterMs: 45_000, botId: "beta", scenarios: ["size-drift", "unknown-position"] },
  { afterMs: 3 * 60_000, botId: "alpha", scenarios: ["in-flight"] },
  { afterMs: 6 * 60_000, botId: "alpha", scenarios: ["unknown-position", "size-drift"] },
];

const stamp = (iso: string) => iso.slice(11, 19);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      journal: { type: "string" },
      speed: { type: "string", default: "1" },
      seed: { type: "string", default: "1" },
      "on-call": { type: "boolean", default: false },
      "venue-port": { type: "string" },
    },
  });
  const speed = Number(values.speed);
  const seed = Number(values.seed);
  if (!values.journal || !(speed > 0) || !Number.isFinite(speed) || !Number.isInteger(seed)) {
    console.error("usage: demo-bots --journal FILE [--speed N] [--seed S] [--on-call]");
    return 2;
  }
  // Fails with the file named if it is missing or unmigrated, before any bot starts.
  openJournalReader(values.journal).db.close();

  let stopping = false;
  let wake: () => void = () => undefined;
  const stop = (signal: string) => {
    if (!stopping) console.log(`bots: ${signal}, finishing the current cycle`);
    stopping = true;
    wake();
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));

  const lastAlert = new Map<string, string>();
  const print = (a: Activity) => {
    // A drift that persists alerts every cycle; say it once until it changes.
    if (a.kind === "alert") {
      if (lastAlert.get(a.botId) === a.message) return;
      lastAlert.set(a.botId, a.message);
    }
    console.log(`${stamp(a.at)} ${a.botId.padEnd(5)} ${a.kind.padEnd(8)} ${a.message}`);
  };

  const barMs = Math.max(1_000, Math.round(BAR_MS / speed));
  const cycleMs = Math.max(MIN_WALL_INTERVAL_MS, Math.round(CYCLE_MS / speed));
  const world = await DemoWorld.open({
    file: values.journal,
    seed,
    start: new Date(),
    barMs,
    cycleMs,
    timing: { mode: "realtime", speed: 1 },
    venueLink: "bybit-v5",
    onActivity: print,
  });
  // The venue gateway: the console's "Check on exchange" asks these simulated venues, as it would
  // ask a real team's gateway, with a read-only key of its own: the lookups the demo makes fail
  // are the bot's (its key's link), not the gateway's. The gateway asks each bot's Bybit V5 venue
  // through CcxtAdapter, the same code `npm run gateway` runs against a real account. Loopback
  // only; the token comes from the environment, not argv.
  const venuePort = values["venue-port"] ? Number(values["venue-port"]) : null;
  // Each order lookup the gateway makes is one line (the bots' own requests, every cycle, are not
  // printed), so the output shows "Check on exchange" reaching the venue as a signed Bybit request
  // for the order's id.
  const venues =
    venuePort === null
      ? null
      : await demoGatewayAdapters(world, {
          onPrivateRequest: (botId, r) => {
            if (r.caller === "bot" || !r.path.startsWith("/v5/order/") || r.method !== "GET") return;
            const linkId = r.params.get("orderLinkId");
            console.log(
              `${stamp(world.now().toISOString())} ${botId.padEnd(5)} ${"venue".padEnd(8)} Bybit V5 ${r.method} ${r.path}` +
                `${linkId ? ` orderLinkId=${linkId}` : ""} (${r.signed ? "signature valid" : "signature refused"})`,
            );
          },
        });
  const gateway =
    venuePort === null || venues === null
      ? null
      : await serveVenueGateway({
          adapters: venues.adapters,
          host: "127.0.0.1",
          port: venuePort,
          token: process.env.DRIFTWATCH_VENUE_TOKEN ?? null,
        });
  if (gateway) console.log(`bots: venue gateway on http://127.0.0.1:${venuePort}`);
  const start = world.now().getTime();
  const rng = seededRng(subSeed(seed, "demo-faults"));
  const onCall = values["on-call"]
    ? new SimulatedOnCall({ world, rng: seededRng(subSeed(seed, "demo-on-call")), respondAfterMs: [60_000 / speed, 180_000 / speed] })
    : null;
  const plan = [...PLAN];
  for (const bot of world.bots) {
    console.log(`bots: ${bot.botId} on ${bot.spec.venue} (Bybit V5 at ${world.bybitVenue(bot.botId)?.url}, through ccxt), ${bot.symbols.join(" ")}`);
  }
  console.log(`bots: writing ${world.file}, ${barMs / 1000} s bars, a cycle every ${cycleMs / 1000} s, speed ${speed} (timestamps on the wall clock)`);

  const inject = (botId: string, faults: DemoFault[], why: string): boolean => {
    const done = faults.map((f) => applyFault(world, botId, f)).filter((x): x is string => x !== null);
    if (done.length > 0) console.log(`${stamp(world.now().toISOString())} ${botId.padEnd(5)} incident  ${why}: ${done.join("; ")}`);
    return done.length > 0;
  };

  try {
    while (!stopping) {
      world.advanceTo(world.targetTime());
      const elapsed = world.now().getTime() - start;
      for (const p of plan.filter((x) => x.afterMs / speed <= elapsed)) {
        const hit = p.scenarios.find((name) => inject(p.botId, SCENARIOS[name].demoIncident, name));
        if (hit) plan.splice(plan.indexOf(p), 1);
      }
      if (plan.length === 0) {
        // After the opening act: a benign fault every couple of minutes, an incident every ~20.
        const perCycle = CYCLE_MS / 60_000;
        for (const bot of world.bots) {
          if (rng.chance(perCycle / 2)) inject(bot.botId, [randomBenignFault(rng)], "benign");
          if (rng.chance(perCycle / 20)) inject(bot.botId, randomIncident(rng), "incident");
        }
      }
      try {
        await world.cycle();
      } catch (error) {
        // One bad cycle (say, the journal locked for longer than the busy timeout) must not end the
        // demo: every write is its own transaction, so the next cycle starts from a consistent file.
        console.error(`bots: cycle failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      for (const line of onCall?.tick() ?? []) console.log(`${stamp(world.now().toISOString())} on-call  ${line}`);
      if (stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, cycleMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    gateway?.close();
    await venues?.close();
    world.close();
  }
  console.log("bots: stopped, journal closed");
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bots: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
