/**
 * The operator's night, in Chromium: sign in, settle the doubtful order of a lost reply by asking
 * the exchange, acknowledge the drift, clear the halt, and watch the bot's next cycle come back
 * running. A viewer sees the same screens with every action disabled. Then the audit chain
 * verifies, and breaks, naming the entry, once a row is altered behind the console's back.
 */
import { signIn } from "../helpers/e2e/accounts";
import { spawnSync } from "node:child_process";
import type http from "node:http";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { serveVenueGateway } from "@/lib/exchange/venue-gateway";
import { repoRoot, sqliteCli, tempDir } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { lostReplyJournal, type LiveBot } from "../helpers/e2e/journals";

const SECRET = "operator-actions-session-secret-longer-than-32";
const TOKEN = "venue-gateway-token-for-tests";
const accounts = [
  { name: "ana", role: "operator", password: "ana's long password here" },
  { name: "vic", role: "viewer", password: "vic's long password here" },
];

function tsx(args: string[], env: Record<string, string>, input?: string) {
  return spawnSync(path.join(repoRoot, "node_modules/.bin/tsx"), args, { cwd: repoRoot, input, encoding: "utf8", env: { ...process.env, ...env } });
}

test.describe.configure({ mode: "serial" });

test.describe("operator actions on a lost reply", () => {
  let server: ConsoleServer;
  let gateway: http.Server;
  let journal: Awaited<ReturnType<typeof lostReplyJournal>>;
  let bot: LiveBot;
  let accountsDb: string;

  test.beforeAll(async () => {
    journal = await lostReplyJournal();
    bot = journal.bot;
    accountsDb = path.join(tempDir("e2e-acc"), "accounts.db");
    for (const a of accounts) {
      const r = tsx(["scripts/accounts.ts", "add", a.name, "--role", a.role, "--password-stdin"], { DRIFTWATCH_ACCOUNTS_DB: accountsDb }, `${a.password}\n`);
      expect(r.status, r.stderr).toBe(0);
    }
    gateway = await serveVenueGateway({ adapters: new Map([["beta", bot.sim]]), host: "127.0.0.1", port: 0, token: TOKEN });
    const port = (gateway.address() as { port: number }).port;
    server = await startConsole({
      journal: journal.file,
      env: {
        DRIFTWATCH_ACCOUNTS_DB: accountsDb,
        DRIFTWATCH_SESSION_SECRET: SECRET,
        DRIFTWATCH_VENUE_URL: `http://127.0.0.1:${port}`,
        DRIFTWATCH_VENUE_TOKEN: TOKEN,
      },
    });
  });
  test.afterAll(async () => {
    await server?.stop();
    gateway?.close();
    journal?.close();
  });

  test("a viewer sees every screen with no operator's form and no enabled action", async ({ page }) => {
    // A visitor is sent to sign in.
    await page.goto(`${server.url}/doubtful`);
    await expect(page.getByTestId("viewer-note")).toHaveText("Sign in as an operator to act. You can see everything; only an operator can act.");
    await signIn(page, server.url, accounts[1]!);
    await page.goto(`${server.url}/doubtful`);
    await expect(page.getByTestId("doubtful-order")).toHaveCount(1);
    await expect(page.getByRole("button", { name: "Check on exchange" })).toHaveCount(0);
    await expect(page.getByText("Resolve by hand")).toHaveCount(0);
    // Told they are signed in, as whom, and that the role is what is missing: not just "Sign in".
    await expect(page.getByTestId("viewer-note")).toContainText(`You are signed in as ${accounts[1]!.name}, a viewer`);
    await expect(page.getByTestId("viewer-note").getByRole("link", { name: "Sign in as an operator" })).toHaveAttribute("href", "/login?next=%2Fdoubtful");
    await page.goto(server.url);
    const row = page.locator('[data-testid="symbol-row"][data-symbol="ETHUSDT"]');
    await expect(row).toHaveAttribute("data-drift", "unknown_position");
    await expect(row.getByTestId("ack-cell")).toHaveText("no");
    await expect(page.getByText("Acknowledge", { exact: true })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Acknowledge ETHUSDT" })).toHaveCount(0);
    // The halted bot's card: review it; a viewer is not sent to "sign in" again.
    const card = page.locator('[data-testid="bot-card"][data-bot="beta"]');
    await expect(card.getByTestId("sign-in-to-clear")).toHaveText("Review · only an operator can clear it");
    await page.goto(`${server.url}/bots/beta`);
    // The checklist, and no clear form: only an operator may clear.
    await expect(page.getByTestId("checklist")).toBeVisible();
    // Its fixes say an operator does them, not "below", where a viewer is shown no form.
    await expect(page.getByTestId("checklist").getByTestId("checklist-fix").filter({ hasText: "An operator" }).first()).toBeVisible();
    await expect(page.getByTestId("checklist")).not.toContainText("below");
    // So does the drift the checklist waits on, which an operator acknowledges on the overview or by a correction here.
    await expect(page.getByTestId("unacknowledged-drift").first()).toContainText("An operator acknowledges it on the overview");
    await expect(page.getByTestId("unacknowledged-drift").first()).not.toContainText("below");
    await expect(page.getByRole("button", { name: "Clear halt" })).toHaveCount(0);
    await expect(page.getByLabel("Why it is safe to resume")).toHaveCount(0);
    await expect(page.getByTestId("viewer-note")).toContainText(`You are signed in as ${accounts[1]!.name}, a viewer`);
    const enabled = await page.locator("form button:enabled").evaluateAll((bs) => bs.map((b) => b.textContent).filter((t) => t !== "Sign out"));
    expect(enabled).toEqual([]);
  });

  test("an operator resolves, acknowledges and clears, and the bot's next cycle runs again", async ({ page }) => {
    await signIn(page, server.url, accounts[0]!);

    // 1. The doubtful order: ask the exchange about its id. The action's answer is held back in the
    // browser until the list, polled every second, no longer has the order: the card must stay for
    // the answer instead of vanishing with it.
    await page.goto(`${server.url}/doubtful`);
    const order = page.getByTestId("doubtful-order");
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    await page.route(
      (url) => url.pathname === "/doubtful",
      async (route) => {
        if (route.request().method() !== "POST") return route.continue();
        const response = await route.fetch();
        await released;
        await route.fulfill({ response });
      },
    );
    await order.getByRole("button", { name: "Check on exchange" }).click();
    await expect(order.getByTestId("gone-from-list")).toContainText("No longer in the list of doubtful orders", { timeout: 15_000 });
    await expect(order.getByRole("button", { name: "Asking the exchange…" })).toBeDisabled();
    release();
    // The outcome stays in view above the list; the card goes once its answer is in.
    await expect(page.getByTestId("resolved-notice")).toContainText("the exchange has it as filled");
    await expect(page.getByTestId("no-doubtful")).toBeVisible();
    // The HALTED banner no longer calls the order unknown: it says when, and how, it was settled.
    await expect(page.getByTestId("halt-banner")).toContainText(/settled at \d\d:\d\d:\d\d UTC: filled \(by operator:ana, on the exchange\)/);
    await page.unroute((url) => url.pathname === "/doubtful");
    expect(bot.sim.orders().filter((o) => o.symbol === "ETHUSDT")).toHaveLength(1); // asked, never resent

    // 2. The drift it left behind: acknowledge it with a note.
    await page.goto(server.url);
    const row = page.locator('[data-testid="symbol-row"][data-symbol="ETHUSDT"]');
    await row.getByText("Acknowledge", { exact: true }).click();
    await row.getByLabel("What you checked").fill("the unknown order filled 2 ETH; lookup confirmed it");
    await row.getByRole("button", { name: "Acknowledge ETHUSDT" }).click();
    await expect(row.getByTestId("action-ok")).toContainText("Acknowledged until");
    await expect(row.getByTestId("ack-cell")).toContainText("yes, by operator:ana");
    // Done: the form closes under its answer, no empty one left open as if it still had to be done.
    await expect(row.getByLabel("What you checked")).toBeHidden();
    await expect(row.getByText("Acknowledge again", { exact: true })).toBeVisible();

    // A drift that comes and goes while the bot is halted (a fill landing between two cycles):
    // nobody saw it live, and no overview row offers to acknowledge it any more.
    bot.sim.setPositionBehindBot("BTCUSDT", 0.3);
    await journal.cycle();
    bot.sim.setPositionBehindBot("BTCUSDT", 0.5);

    // 3. The bot's next cycle reconciles clean; the checklist turns green item by item, once the
    // drift that came and went is acknowledged on the bot page.
    await journal.cycle();
    await page.goto(`${server.url}/bots/beta`);
    const checklist = page.getByTestId("checklist");
    await expect(checklist.locator('li[data-met="false"]')).toHaveCount(1);
    await expect(checklist).toContainText("not acknowledged: BTCUSDT");
    const ended = page.locator('[data-testid="unacknowledged-drift"][data-symbol="BTCUSDT"]');
    await expect(ended).toContainText("back in sync since");
    await ended.getByLabel("What you checked").fill("a fill landed between two cycles; back in sync on the next");
    await ended.getByRole("button", { name: "Acknowledge BTCUSDT" }).click();
    // Without a reload, it moves to the acknowledged list: who, when and the note, and no form.
    const acknowledged = page.locator('[data-testid="acknowledged-drift"][data-symbol="BTCUSDT"]');
    await expect(acknowledged).toContainText("Acknowledged by operator:ana at");
    await expect(acknowledged).toContainText("“a fill landed between two cycles; back in sync on the next”");
    await expect(acknowledged.getByRole("button")).toHaveCount(0);
    await expect(ended).toHaveCount(0);
    await expect(checklist.locator('li[data-met="false"]')).toHaveCount(0);

    // 4. Clear: a reason, and the bot id typed out.
    // The clear has a heading of its own under the checklist, and names its form.
    await expect(page.getByRole("form", { name: "Confirm the clear" }).getByRole("heading", { name: "Confirm the clear" })).toBeVisible();
    await page.getByLabel("Why it is safe to resume").fill("doubtful order settled by lookup, drift explained, clean cycle since");
    await page.getByLabel(/Type the bot id to confirm/).fill("beta");
    await page.getByRole("button", { name: "Clear halt" }).click();
    await expect(page.getByTestId("action-ok").filter({ hasText: "Cleared" })).toBeVisible();
    await expect(page.getByTestId("not-halted")).toBeVisible();

    // 5. The bot's next cycle: a new entry goes through, and the overview shows it running.
    const next = await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 5, bar: new Date().toISOString() });
    expect(next.kind).toBe("placed");
    await journal.cycle();
    await page.goto(server.url);
    await expect(page.locator('[data-testid="bot-card"][data-bot="beta"] [data-status]')).toHaveText("running");
    await expect(page).toHaveTitle("driftwatch");
    await expect(page.locator('link[rel="icon"]')).toHaveAttribute("href", "/favicon.svg");
  });

  test("the audit log lists the actions, and its chain verifies until a row is altered", async ({ page }) => {
    // Signed in (a viewer is enough): a reader who is not sees roles instead of names.
    await signIn(page, server.url, accounts[1]!);
    await page.goto(`${server.url}/audit`);
    await expect(page.getByTestId("audit-entry").first()).toBeVisible();
    const actions = await page.getByTestId("audit-entry").allTextContents();
    expect(actions.join("\n")).toMatch(/operator:ana · clear_halt/);
    expect(actions.join("\n")).toMatch(/acknowledge_drift/);
    expect(actions.join("\n")).toMatch(/resolve_order_lookup/);

    // The audit key is kept beside the accounts file: verify finds it there.
    const ok = tsx(["scripts/audit.ts", "verify", journal.file], { DRIFTWATCH_ACCOUNTS_DB: accountsDb });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/entries, chain verified, head hmac-sha256:[0-9a-f]{64}/);

    // Someone with the file and the sqlite3 tool rewrites history: triggers first, then a row.
    sqliteCli(journal.file, "DROP TRIGGER audit_log_no_update; UPDATE audit_log SET actor = 'operator:mallory' WHERE id = 2;");
    const broken = tsx(["scripts/audit.ts", "verify", journal.file], { DRIFTWATCH_ACCOUNTS_DB: accountsDb });
    expect(broken.status).toBe(1);
    expect(broken.stderr).toMatch(/chain broken at entry #2 \(.*operator:mallory.*\): its hash does not match its content/);
  });
});
