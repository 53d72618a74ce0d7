/**
 * The demo's opening act, settled as a newcomer settles it: `npm run demo` arms alpha's lost reply
 * (the venue filled the order, the reply never came, the bot's own lookups of it fail for five
 * minutes), the demo operator opens the doubtful list and presses "Check on exchange". The console
 * asks the demo's venue gateway, which asks alpha's simulated venue through CcxtAdapter as Bybit V5
 * over loopback HTTP, signature and all. The journal then says what the exchange answered, the
 * audit log names the operator, and the venue's own log shows the signed request for the order's id.
 *
 * The bot itself trades on that venue through ccxt too, with a key of its own whose link the demo
 * breaks (its lookups of the order are cut). The demo prints only the gateway's order lookups, so a
 * gateway request for the order's id before the click would mean something else asked; after it,
 * it is the console's.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test } from "@playwright/test";
import { tempDir } from "../helpers/journal";
import { freePort } from "@/tools/lib/console-server";
import { killDemo } from "../helpers/e2e/demo";

const root = path.resolve(import.meta.dirname, "../..");

/** One read of the demo's journal, on a connection of its own (the bots keep writing meanwhile). */
function readJournal<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true });
  try {
    db.pragma("busy_timeout = 5000");
    return read(db);
  } finally {
    db.close();
  }
}

/** The venue's line for a gateway lookup of `id` (scripts/demo-bots.ts prints one per order request). */
const venueLookups = (output: string, id: string) =>
  output.split("\n").filter((l) => /\balpha venue {4}Bybit V5 GET \/v5\/order\/(realtime|history) /.test(l) && l.includes(` orderLinkId=${id} `));

test.describe("npm run demo: Check on exchange", () => {
  let demo: ChildProcess | undefined;
  let output = "";
  // Only if the test failed half way: never leave the demo running.
  test.afterEach(() => killDemo(demo?.pid, output));

  test("settles alpha's lost reply through the venue gateway and CcxtAdapter, and the journal and audit log say what the exchange answered", async ({
    page,
  }) => {
    // A build first if the sources are newer than it (scripts/test.mjs builds before the browser
    // tests), then the opening act: on a loaded 2-core machine all of it takes minutes.
    test.setTimeout(9 * 60_000);
    const dir = tempDir("demo-check");
    const port = await freePort();
    let venuePort = await freePort();
    while (venuePort === port) venuePort = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const journal = path.join(dir, "demo.db");
    output = "";
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DRIFTWATCH_DEMO_PORT: String(port),
      DRIFTWATCH_DEMO_VENUE_PORT: String(venuePort),
      DRIFTWATCH_DEMO_DIR: dir,
      FORCE_COLOR: "0",
    };
    delete env.DRIFTWATCH_DEMO_SERVER;
    // --speed 3: the lost reply is armed 10 s / 3 in and waits for alpha's next order; the bot's own
    // lookups still fail for five minutes of the wall clock, whatever the speed, so the order stays
    // doubtful long enough to be checked from the console.
    demo = spawn("npm", ["run", "demo", "--", "--speed", "3"], { cwd: root, detached: true, env, stdio: ["ignore", "pipe", "pipe"] });
    demo.stdout?.on("data", (d) => (output += d));
    demo.stderr?.on("data", (d) => (output += d));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      demo!.once("exit", (code, signal) => resolve({ code, signal })),
    );

    await expect.poll(() => output, { timeout: 5 * 60_000, message: "the demo never said where to open it" }).toContain(`demo: open ${url}`);
    const password = output.match(/sign in as "demo" with password (\S+)/)?.[1];
    expect(password, "the demo did not say how to sign in").toBeTruthy();
    // The bots (compiled by tsx as they start) may come up after the console.
    await expect.poll(() => output, { timeout: 60_000 }).toContain(`bots: venue gateway on http://127.0.0.1:${venuePort}`);
    // And the bots trade on their venues through ccxt, not on the simulator directly.
    expect(output).toMatch(/bots: alpha on sim-perp \(Bybit V5 at http:\/\/127\.0\.0\.1:\d+, through ccxt\)/);

    // The demo operator signs in with the password the demo printed.
    await page.goto(`${url}/login`);
    await page.getByLabel("Account name").fill("demo");
    await page.getByLabel("Password").fill(password!);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toContainText("demo (operator)", { timeout: 30_000 });

    // Alpha's lost reply: its order unknown, the bot's own lookups failing.
    const unknownOrder = () =>
      readJournal(
        journal,
        (db) =>
          db.prepare(`SELECT client_order_id AS id, symbol, qty, last_error AS lastError FROM orders WHERE bot_id = 'alpha' AND state = 'unknown'`).get() as
            { id: string; symbol: string; qty: number; lastError: string | null } | undefined,
      );
    await expect.poll(unknownOrder, { timeout: 3 * 60_000, intervals: [1_000], message: "alpha's lost reply never went unknown" }).toBeDefined();
    const order = unknownOrder()!;
    // The bot asked its Bybit venue through ccxt and the connection was cut.
    // Its last error: the send's failure and the lookup's when it went unknown, or a later lookup's
    // alone (the bot keeps asking, and each failure is the order's last error).
    expect(order.lastError).toMatch(/^(send failed: .+; then )?lookup failed: bybit could not be asked about .*: network error/);
    // Nobody asked the venue about it through the gateway yet.
    expect(venueLookups(output, order.id)).toEqual([]);

    await page.goto(`${url}/doubtful`);
    const main = page.locator("main");
    const card = main.locator(`[data-testid="doubtful-order"][data-order="${order.id}"]`);
    await expect(card).toBeVisible({ timeout: 30_000 });
    await card.getByRole("button", { name: "Check on exchange" }).click();

    // The durable result: the journal holds what the exchange answered (filled, the reply's fill),
    // the order's history says a lookup found it, and the audit log names the operator.
    const settled = () =>
      readJournal(journal, (db) =>
        db.prepare(`SELECT state, filled_qty AS filledQty, exchange_order_id AS exchangeOrderId FROM orders WHERE client_order_id = ?`).get(order.id),
      ) as {
        state: string;
        filledQty: number;
        exchangeOrderId: string | null;
      };
    await expect.poll(() => settled().state, { timeout: 60_000, intervals: [500], message: "the check did not settle the order" }).toBe("filled");
    expect(settled().filledQty).toBe(order.qty);
    expect(settled().exchangeOrderId).toBeTruthy();
    const events = readJournal(
      journal,
      (db) =>
        db.prepare(`SELECT kind, actor, detail FROM order_events WHERE client_order_id = ? AND kind = 'lookup_found'`).all(order.id) as {
          kind: string;
          actor: string;
          detail: string;
        }[],
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.actor).toBe("operator:demo");
    expect(JSON.parse(events[0]!.detail)).toMatchObject({ status: "filled", filledQty: order.qty, exchangeOrderId: settled().exchangeOrderId });
    const audit = readJournal(
      journal,
      (db) =>
        db.prepare(`SELECT actor, outcome, detail FROM audit_log WHERE action = 'resolve_order_lookup' AND target = ?`).all(order.id) as {
          actor: string;
          outcome: string;
          detail: string;
        }[],
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: "operator:demo", outcome: "applied" });
    expect(JSON.parse(audit[0]!.detail)).toMatchObject({ lookup: "found", before: { state: "unknown" }, after: { state: "filled", filledQty: order.qty } });

    // It went through ccxt: alpha's Bybit V5 server received a validly signed order lookup for the
    // order's id, and refused none.
    const lookups = venueLookups(output, order.id);
    expect(lookups.length).toBeGreaterThan(0);
    for (const line of lookups) expect(line).toMatch(/\(signature valid\)$/);
    expect(output).not.toContain("signature refused");

    // And the console agrees once the page is loaded afresh: the order is off the doubtful list.
    await page.goto(`${url}/doubtful`);
    await expect(main.getByTestId("doubtful-order").first().or(main.getByTestId("no-doubtful"))).toBeVisible({ timeout: 30_000 });
    await expect(main.locator(`[data-testid="doubtful-order"][data-order="${order.id}"]`)).toHaveCount(0);

    process.kill(-demo.pid!, "SIGINT");
    expect([
      { code: 0, signal: null },
      { code: null, signal: "SIGINT" },
    ]).toContainEqual(await exited);
    expect(output).toContain("demo: stopped.");
  });
});
