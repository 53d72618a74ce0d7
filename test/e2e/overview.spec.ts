import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { isoAgo, sqliteCli, sqliteCliJournal, tempDir } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

test.describe("a journal made with the sqlite3 tool and raw SQL", () => {
  let server: ConsoleServer;

  test.beforeAll(async () => {
    const journal = sqliteCliJournal("e2e");
    sqliteCli(
      journal,
      `INSERT INTO bots VALUES ('shell-bot', 'sim', 'sh1', '${isoAgo(3_000)}'), ('halted-bot', 'bybit', 'hb', '${isoAgo(1_000)}');
       INSERT INTO breakers VALUES ('shell-bot', 0, NULL, '${isoAgo(60_000)}', 'bot', 1),
                                   ('halted-bot', 1, 'size drift BTCUSDT: book +0.5 vs exchange +0.3', '${isoAgo(120_000)}', 'bot', 2);
       INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES ('shell-bot', '${isoAgo(2_000)}', 'clean', 0),
                                                                                  ('halted-bot', '${isoAgo(2_000)}', 'drift', 0);`,
    );
    server = await startConsole({ journal });
  });
  test.afterAll(async () => server?.stop());

  test("lists each bot with its breaker and heartbeat age", async ({ page }) => {
    await page.goto(server.url);
    await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
    const cards = page.getByTestId("bot-card");
    await expect(cards).toHaveCount(2);

    const halted = page.locator('[data-bot="halted-bot"]');
    await expect(halted.locator("[data-status]")).toHaveText("HALTED");
    await expect(halted.getByTestId("halt-reason")).toContainText("size drift BTCUSDT: book +0.5 vs exchange +0.3");
    await expect(halted.getByTestId("breaker-state")).toHaveText("halted");

    const running = page.locator('[data-bot="shell-bot"]');
    await expect(running.locator("[data-status]")).toHaveText("running");
    await expect(running.getByTestId("breaker-state")).toHaveText("not halted");
    await expect(running.getByTestId("heartbeat-age")).toContainText(/^\d+ s ago/);
  });

  test("shows a UTC time with the local time on hover", async ({ page }) => {
    await page.goto(server.url);
    const time = page.locator('[data-bot="shell-bot"] time').first();
    await expect(time).toContainText("UTC");
    await expect(time).toHaveAttribute("title", /your local time/);
  });
});

test.describe("an empty journal", () => {
  let server: ConsoleServer;
  test.beforeAll(async () => {
    server = await startConsole({ journal: sqliteCliJournal("empty") });
  });
  test.afterAll(async () => server?.stop());

  test("says how to point a bot at it instead of showing an empty page", async ({ page }) => {
    await page.goto(server.url);
    await expect(page.getByRole("heading", { name: "No bots have written to this journal yet" })).toBeVisible();
    await expect(page.getByText("npm run demo")).toBeVisible();
  });
});

test.describe("a journal that cannot be read", () => {
  const cases: { name: string; make: () => string; expect: RegExp }[] = [
    { name: "a missing path", make: () => path.join(tempDir("missing"), "journal.db"), expect: /: not found\. Fix: run "npm run journal -- migrate / },
    {
      name: "a file that is not SQLite",
      make: () => {
        const file = path.join(tempDir("notdb"), "journal.db");
        fs.writeFileSync(file, "not a database\n".repeat(400));
        return file;
      },
      expect: /: is not a SQLite database .*Fix: set DRIFTWATCH_JOURNAL/,
    },
    {
      name: "a journal of a future schema version",
      make: () => {
        const file = sqliteCliJournal("future");
        sqliteCli(file, "PRAGMA user_version = 42;");
        return file;
      },
      expect: /: has schema version 42, newer than this driftwatch knows \(\d+, the migrations in .*drizzle\)\. Fix: upgrade driftwatch/,
    },
  ];

  for (const c of cases) {
    test(`${c.name} gives one clear line in the browser and on the command line`, async ({ page }) => {
      const journal = c.make();
      const server = await startConsole({ journal });
      try {
        const response = await page.goto(server.url);
        expect(response?.ok()).toBe(true);
        const message = page.getByTestId("journal-error");
        // A reader who is not signed in is told the file's name, not where it lives (issue 18);
        // the server's own line below names the whole path.
        await expect(message).toHaveText(new RegExp(`^journal journal\\.db${c.expect.source}`));
        await expect(page.locator("body")).not.toContainText(path.dirname(journal));
        await expect(page.getByRole("heading", { name: "The journal cannot be read" })).toBeVisible();
        await expect(page.getByTestId("bot-card")).toHaveCount(0);
        await expect(page.locator("body")).not.toContainText(/at \w+ \(|node_modules|Error:/);
        const line = server
          .output()
          .split("\n")
          .find((l) => l.startsWith("driftwatch: journal "));
        expect(line).toBeDefined();
        expect(line).toMatch(c.expect);
        expect(line).toContain(journal);
      } finally {
        await server.stop();
      }
    });
  }
});
