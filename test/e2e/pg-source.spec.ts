/**
 * A PostgreSQL source beside a SQLite one, in Chromium (issue 15, step 2): both bots shown; the
 * PostgreSQL server stopped, its banner says it cannot be reached and its bot is UNKNOWN while the
 * SQLite bot stays live; started again, the banner goes by itself. The PostgreSQL journal is the
 * SQLite journal of a second bot copied with COPY (tools/lib/pg-copy.ts) into a real server.
 */
import { expect, test } from "@playwright/test";
import pg from "pg";
import { migratePgJournal } from "@/lib/db/pg-journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { copySqliteJournalToPg } from "@/tools/lib/pg-copy";
import { postgresBinDir, startPostgres, type PostgresServer } from "@/tools/lib/postgres-server";
import { healthyJournal } from "../helpers/e2e/journals";

const inCi = process.env.CI === "true" || process.env.CI === "1";
if (postgresBinDir() === null && inCi)
  throw new Error("CI: PostgreSQL's server binaries are not installed: npm run setup must install Debian's postgresql package");

test.describe("a PostgreSQL source beside a SQLite one", () => {
  test.skip(postgresBinDir() === null, "*** SKIPPING: no PostgreSQL server binaries (npm run setup installs them; CI never skips) ***");
  let server: ConsoleServer;
  let postgres: PostgresServer;
  const journals: Awaited<ReturnType<typeof healthyJournal>>[] = [];

  test.beforeAll(async () => {
    postgres = await startPostgres({ label: "e2e-pg" });
    journals.push(await healthyJournal({ botId: "local", prefix: "lo1" }), await healthyJournal({ botId: "remote", prefix: "re1" }));
    const c = new pg.Client({ connectionString: postgres.url });
    await c.connect();
    await c.query("CREATE DATABASE fleet");
    await c.end();
    const url = postgres.url.replace(/\/postgres$/, "/fleet");
    const f = new pg.Client({ connectionString: url });
    await f.connect();
    await migratePgJournal(f);
    await f.end();
    await copySqliteJournalToPg(journals[1]!.file, url);
    server = await startConsole({ journal: `${journals[0]!.file},${url}` });
  });
  test.afterAll(async () => {
    await server?.stop();
    for (const j of journals) j.close();
    await postgres?.stop();
  });

  test("shows the stopped server's banner and its bot UNKNOWN while the SQLite bot stays live, and recovers by itself", async ({ page }) => {
    journals[0]!.beat();
    await page.goto(server.url);
    const card = (bot: string) => page.locator(`[data-testid="bot-card"][data-bot="${bot}"]`);
    for (const bot of ["local", "remote"]) await expect(card(bot)).toBeVisible();
    await expect(page.getByTestId("source-problem")).toHaveCount(0);
    await expect(card("remote").getByTestId("bot-card-where")).toContainText("journal fleet");

    await postgres.halt();
    try {
      const banner = page.locator(`[data-testid="source-problem"][data-source="fleet"]`);
      await expect(banner).toBeVisible();
      await expect(banner).toContainText("cannot be reached");
      await expect(banner).toContainText("its bots are UNKNOWN");
      await expect(card("remote").locator("[data-status]")).toHaveText("UNKNOWN");
      await expect(card("local").locator("[data-status]")).not.toHaveText("UNKNOWN");
      await expect(page.getByTestId("live-status")).toContainText(/live · updated \d+ s ago/);
    } finally {
      await postgres.resume();
    }
    await expect(page.getByTestId("source-problem")).toHaveCount(0);
    await expect(card("remote").locator("[data-status]")).not.toHaveText("UNKNOWN");

    // The bot's page and its symbol page (line, chart, orders) read the PostgreSQL bot.
    await page.goto(`${server.url}/bots/remote`);
    await expect(page.getByRole("heading", { level: 1 })).toContainText("remote");
    await page.goto(`${server.url}/bots/remote/symbols/BTCUSDT?range=day`);
    await expect(page.getByText("does not read PostgreSQL sources yet")).toHaveCount(0);
    await expect(page.getByTestId("position-chart").locator(".recharts-line")).toHaveCount(2, { timeout: 20_000 });
    await expect(page.getByTestId("position-chart").locator("path.recharts-line-curve").first()).toHaveAttribute("d", /^M[\d.]+,[\d.]+.*L/);
    await expect(page.getByTestId("book-ours")).toBeVisible();
    await expect(page.getByTestId("updated-ago")).toHaveText(/^\d+ s$/);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: "test-results/screenshots/pg-symbol-page-phone.png", fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
    // The incidents read both journals: a trip the PostgreSQL bot writes in plain SQL is listed beside
    // the SQLite bot's, opens as its story with its post-mortem, and shows in the window minute by minute.
    const at = new Date(Date.now() - 5 * 60_000).toISOString();
    const c = new pg.Client({ connectionString: postgres.url.replace(/\/postgres$/, "/fleet") });
    await c.connect();
    try {
      const cycle = await c.query(`INSERT INTO reconciliations (bot_id, at, outcome) VALUES ('remote', $1, 'drift') RETURNING id`, [at]);
      await c.query(
        `INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('remote', $1, 'trip', 'size drift on BTCUSDT', 'bot', $2)`,
        [at, cycle.rows[0].id],
      );
    } finally {
      await c.end();
    }
    await page.goto(`${server.url}/incidents`);
    await expect(page.getByText("does not read PostgreSQL sources yet")).toHaveCount(0);
    const row = page.getByTestId("incident-row");
    await expect(row).toHaveCount(1);
    await expect(row.getByTestId("row-journal")).toHaveText("journal fleet");
    await row.getByRole("link", { name: "remote" }).click();
    await expect(page.getByRole("heading", { level: 1 })).toContainText(/Incident fleet-\d+: remote/);
    await expect(page.getByTestId("incident-status")).toHaveText("OPEN");
    const postmortem = await page.request.get(`${server.url}${await page.getByTestId("postmortem").getAttribute("href")}`);
    expect(postmortem.status()).toBe(200);
    expect(await postmortem.text()).toContain("size drift on BTCUSDT");
    await page.getByTestId("minute-by-minute").click();
    await expect(page.locator('[data-testid="incident-event"][data-kind="trip"]').getByTestId("event-journal")).toHaveText("journal fleet");
  });
});
