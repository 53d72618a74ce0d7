/**
 * An operator's action on a bot of a PostgreSQL source, in Chromium against the production build
 * (issue 15, step 2): the doubtful order of a lost reply, copied into a real PostgreSQL server
 * beside a SQLite journal, resolved by hand from the doubtful list. The order changes in the
 * PostgreSQL journal, its audit entry is there (`npm run audit -- verify` checks the chain against
 * the head the console published for it), and the SQLite journal is untouched: the action went to
 * the bot's own source, through lib/actions/pg-guard.ts. Then the bot's own page, read from
 * PostgreSQL: its card and its breaker, halted from there, with the clear checklist it then shows.
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { migratePgJournal } from "@/lib/db/pg-journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { copySqliteJournalToPg } from "@/tools/lib/pg-copy";
import { postgresBinDir, startPostgres, type PostgresServer } from "@/tools/lib/postgres-server";
import { addAccountWithCli, signIn } from "../helpers/e2e/accounts";
import { noHorizontalScroll, noSeriousAxeViolations } from "../helpers/e2e/a11y";
import { healthyJournal, lostReplyJournal } from "../helpers/e2e/journals";
import { tempDir } from "../helpers/journal";

const inCi = process.env.CI === "true" || process.env.CI === "1";
if (postgresBinDir() === null && inCi)
  throw new Error("CI: PostgreSQL's server binaries are not installed: npm run setup must install Debian's postgresql package");

const ana = { name: "ana", password: "ana's long password for pg actions" };

test.describe("an action on a bot of a PostgreSQL source", () => {
  test.skip(postgresBinDir() === null, "*** SKIPPING: no PostgreSQL server binaries (npm run setup installs them; CI never skips) ***");
  let server: ConsoleServer;
  let postgres: PostgresServer;
  let url: string;
  let accountsDb: string;
  let local: Awaited<ReturnType<typeof healthyJournal>>;
  let remote: Awaited<ReturnType<typeof lostReplyJournal>>;

  test.beforeAll(async () => {
    postgres = await startPostgres({ label: "e2e-pg-actions" });
    local = await healthyJournal({ botId: "local", prefix: "lo1" });
    remote = await lostReplyJournal();
    const c = new pg.Client({ connectionString: postgres.url });
    await c.connect();
    await c.query("CREATE DATABASE desk");
    await c.end();
    url = postgres.url.replace(/\/postgres$/, "/desk");
    const f = new pg.Client({ connectionString: url });
    await f.connect();
    await migratePgJournal(f);
    await f.end();
    await copySqliteJournalToPg(remote.file, url);
    accountsDb = path.join(tempDir("e2e-acc"), "accounts.db");
    addAccountWithCli(accountsDb, { name: ana.name, role: "operator", password: ana.password });
    server = await startConsole({
      journal: `${local.file},${url}`,
      env: { DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_SESSION_SECRET: "pg-actions-spec-session-secret-longer-than-32" },
    });
  });
  test.afterAll(async () => {
    await server?.stop();
    local?.close();
    remote?.close();
    await postgres?.stop();
  });

  test("a doubtful order resolved by hand lands in the PostgreSQL journal with its audit entry", async ({ page }) => {
    await signIn(page, server.url, ana);
    await page.goto(`${server.url}/doubtful`);
    const card = page.getByTestId("doubtful-order");
    await expect(card).toHaveCount(1);
    const id = (await card.getAttribute("data-order"))!;
    await card.getByText("Resolve by hand").click();
    await card.getByLabel("Status on the exchange's own screen").selectOption("absent");
    await card.getByLabel(/Note \(required\)/).fill("venue screen: no such order");
    await card.getByRole("button", { name: "Record resolution" }).click();
    await expect(page.getByTestId("resolved-notice")).toContainText("recorded as absent");

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const order = await c.query<{ state: string }>("SELECT state FROM orders WHERE client_order_id = $1", [id]);
      expect(order.rows[0]?.state).toBe("absent");
      const audit = await c.query<{ actor: string; action: string; target: string }>("SELECT actor, action, target FROM audit_log ORDER BY id");
      expect(audit.rows).toEqual([expect.objectContaining({ actor: expect.stringContaining("ana"), target: expect.stringContaining(id) })]);
    } finally {
      await c.end();
    }
    // Nothing reached the SQLite journal: its audit log is still empty.
    const sqlite = (await import("better-sqlite3")).default;
    const db = new sqlite(local.file, { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) AS n FROM audit_log").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    await page.reload();
    await expect(page.getByTestId("doubtful-order")).toHaveCount(0);

    // `npm run audit -- verify` checks both chains, the PostgreSQL one against the head the console published for it.
    const verify = spawnSync(path.resolve("node_modules/.bin/tsx"), ["scripts/audit.ts", "verify", "--expect-head"], {
      encoding: "utf8",
      env: { ...process.env, DRIFTWATCH_JOURNAL: `${local.file},${url}`, DRIFTWATCH_ACCOUNTS_DB: accountsDb },
    });
    expect(verify.stderr).toContain("no head was published for it"); // the SQLite journal: nobody acted on it
    expect(verify.stdout).toMatch(/source desk: audit log of postgresql:\/\/.*\/desk: 1 entries, chain verified; holds the published head #1/);
    expect(verify.status).toBe(2);
  });

  test("the PostgreSQL bot's own page shows its card, halts it into its own journal, then shows the checklist to clear it", async ({ page }) => {
    await signIn(page, server.url, ana);
    await page.goto(`${server.url}/bots/beta`);
    const main = page.locator("main");
    await expect(main.getByRole("heading", { level: 1 })).toHaveText("Bot beta");
    await expect(page.getByText("does not read PostgreSQL sources yet")).toHaveCount(0);
    await expect(page.getByTestId("live-status")).toContainText(/live · updated \d+ s ago/);
    await expect(main.getByTestId("not-halted")).toBeVisible();

    const form = main.getByTestId("halt-now");
    await form.getByText("Halt now").click();
    await form.getByLabel("Why halt it").fill("venue maintenance, halted from the bot page");
    await form.getByRole("button", { name: "Halt beta" }).click();
    await expect(main.getByTestId("action-ok").first()).toContainText("Halted.");
    // The page learns of it from the PostgreSQL journal's change signal, with no reload.
    const checklist = main.getByTestId("checklist");
    await expect(checklist).toBeVisible();
    await expect(checklist.locator('[data-item="reconciliation"]')).toHaveAttribute("data-met", "false");
    await expect(checklist.locator('[data-item="doubtful"]')).toHaveAttribute("data-met", "true");
    await expect(main.getByTestId("halt-reason")).toContainText("venue maintenance, halted from the bot page");

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const breaker = await c.query<{ halted: number; changed_by: string }>("SELECT halted, changed_by FROM breakers WHERE bot_id = 'beta'");
      expect(breaker.rows[0]).toEqual({ halted: 1, changed_by: expect.stringContaining("ana") });
      const audit = await c.query<{ action: string; outcome: string }>("SELECT action, outcome FROM audit_log ORDER BY id");
      expect(audit.rows.at(-1)).toEqual({ action: "halt_bot", outcome: "applied" });
    } finally {
      await c.end();
    }

    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(page);
    await noSeriousAxeViolations(page);
    await page.screenshot({ path: "test-results/screenshots/pg-bot-page-phone.png", fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    // The symbol page does not read PostgreSQL yet, and says so rather than showing nothing.
    await page.goto(`${server.url}/bots/beta/symbols/BTCUSDT`);
    await expect(page.getByText("does not read PostgreSQL sources yet").first()).toBeVisible();
  });
});
