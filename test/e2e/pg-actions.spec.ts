/**
 * An operator's action on a bot of a PostgreSQL source, in Chromium against the production build
 * (issue 15, step 2): the doubtful order of a lost reply, copied into a real PostgreSQL server
 * beside a SQLite journal, resolved by hand from the doubtful list. The order changes in the
 * PostgreSQL journal, its audit entry is there (`npm run audit -- verify` checks the chain against
 * the head the console published for it), and the SQLite journal is untouched: the action went to
 * the bot's own source, through lib/actions/pg-guard.ts. Then the bot's own page, read from
 * PostgreSQL: its halt and clear checklist, its book corrected from there into PostgreSQL, and the
 * symbol's own page.
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

  test("the PostgreSQL bot's own page shows its halt and checklist, and corrects its book into its own journal", async ({ page }) => {
    await signIn(page, server.url, ana);
    await page.goto(`${server.url}/bots/beta`);
    const main = page.locator("main");
    await expect(main.getByRole("heading", { level: 1 })).toHaveText("Bot beta");
    await expect(page.getByText("does not read PostgreSQL sources yet")).toHaveCount(0);
    await expect(page.getByTestId("live-status")).toContainText(/live · updated \d+ s ago/);
    // The lost reply's order filled on the venue: the bot's book says 0 ETHUSDT, the exchange +2, and the bot halted.
    await expect(main.getByTestId("halt-reason")).toContainText("unknown");
    const checklist = main.getByTestId("checklist");
    await expect(checklist).toContainText("ETHUSDT book 0 vs exchange +2");
    await expect(checklist.locator('[data-item="reconciliation"]')).toHaveAttribute("data-met", "false");
    await expect(checklist.locator('[data-item="doubtful"]')).toHaveAttribute("data-met", "true"); // settled in the test before

    const line = main.locator('[data-testid="book-line"][data-symbol="ETHUSDT"]');
    const correct = async () => {
      await line.getByLabel(/Adopt the exchange's \+2/).check();
      await line.getByLabel("What you checked on the venue").fill("venue shows the 2 ETHUSDT of the lost reply's fill");
      await line.getByRole("button", { name: "Correct the book of ETHUSDT" }).click();
    };
    // The order settled in the test before changed after the bot's last cycle: its sizes are out of date, refused by the PostgreSQL guard.
    await correct();
    await expect(line.getByRole("alert")).toContainText("became absent after the bot's last reconciliation");

    // The bot's next cycle, written as any bot writes one (docs/journal.md: plain SQL), the same sizes as its last.
    const w = new pg.Client({ connectionString: url });
    await w.connect();
    let cycleId: number;
    try {
      const last = await w.query<{ id: string }>("SELECT id FROM reconciliations WHERE bot_id = 'beta' ORDER BY at DESC, id DESC LIMIT 1");
      const row = await w.query<{ id: string }>(
        "INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES ('beta', $1, 'drift', 0) RETURNING id",
        [new Date().toISOString()],
      );
      cycleId = Number(row.rows[0]!.id);
      await w.query(
        "INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) SELECT $1, symbol, ours, theirs, qty_step, mark_price FROM reconciliation_positions WHERE reconciliation_id = $2",
        [cycleId, last.rows[0]!.id],
      );
    } finally {
      await w.end();
    }
    // The page learns of the cycle from the PostgreSQL journal's change signal, with no reload, and the correction goes through.
    await expect(line.locator('input[name="reconciliationId"]')).toHaveValue(String(cycleId));
    await correct();
    await expect(line.getByTestId("correction-pending")).toContainText(
      /^Corrected by operator:ana at .+: book 0 → \+2; the bot applies it on its next cycle\.$/,
    );

    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const corrections = await c.query<{ bot_id: string; symbol: string; delta: number; corrected_by: string }>(
        "SELECT bot_id, symbol, delta, corrected_by FROM book_corrections",
      );
      expect(corrections.rows).toEqual([{ bot_id: "beta", symbol: "ETHUSDT", delta: 2, corrected_by: expect.stringContaining("ana") }]);
      const audit = await c.query<{ action: string; outcome: string }>("SELECT action, outcome FROM audit_log ORDER BY id");
      expect(audit.rows.at(-1)).toEqual({ action: "correct_book", outcome: "applied" });
    } finally {
      await c.end();
    }
    // The page, reloaded, reads the correction back from PostgreSQL.
    await page.reload();
    await expect(main.locator('[data-testid="book-correction"][data-symbol="ETHUSDT"]')).toBeVisible();

    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(page);
    await noSeriousAxeViolations(page);
    await page.screenshot({ path: "test-results/screenshots/pg-bot-page-phone.png", fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });

    // The symbol page reads the PostgreSQL bot too: the drifting line, as the bot last reconciled it.
    await page.goto(`${server.url}/bots/beta/symbols/ETHUSDT`);
    await expect(page.getByText("does not read PostgreSQL sources yet")).toHaveCount(0);
    await expect(page.getByTestId("book-ours")).toHaveText("0");
    await expect(page.getByTestId("book-theirs")).toHaveText("+2");
  });
});
