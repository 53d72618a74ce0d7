/**
 * What the on-call person sees while the journal is in trouble: the cause in a banner, nothing
 * shown as running, the console still answering, and the page recovering once the fault is lifted.
 * The data-level guarantees (nothing lost, nothing half-done) are in test/integration/faults-*.
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { corruptCopy, startFault } from "../helpers/faults";
import { isoAgo, sqliteCli, sqliteCliJournal, tempDir } from "../helpers/journal";
import { startConsole } from "@/tools/lib/console-server";
import { healthyJournal } from "../helpers/e2e/journals";

const card = (page: Page, bot: string) => page.locator(`[data-testid="bot-card"][data-bot="${bot}"]`);

async function expectNothingRunning(page: Page) {
  await expect(page.locator('[data-status="running"]')).toHaveCount(0);
  await expect(page.locator("body")).not.toContainText(/at \w+ \(|node_modules|SqliteError/);
}

test("a journal moved away while the page is open: named at once, nothing running, and back to live once it is moved back", async ({ page }) => {
  const j = await healthyJournal();
  const server = await startConsole({ journal: j.file });
  const moved = path.join(tempDir("moved"), "journal.db");
  try {
    j.beat();
    await page.goto(server.url);
    await expect(card(page, "gamma").locator("[data-status]")).toHaveText("running");

    fs.renameSync(j.file, moved);
    // The console still has the file open; it must not keep showing it as live.
    const banner = page.getByTestId("alarm-banner");
    await expect(banner).toContainText("The console cannot read the journal right now", { timeout: 15_000 });
    await expect(banner).toContainText("was deleted or moved away while the console was reading it");
    await expect(banner).toContainText("put the journal back at this path");
    await expect(page.getByTestId("live-status")).toContainText("not updating");
    await expectNothingRunning(page);
    const api = await page.request.get(`${server.url}/api/overview`);
    expect(api.status()).toBe(503);
    expect((await api.json()).error.code).toBe("gone");

    // A fresh load shows the problem alone.
    await page.reload();
    await expect(page.getByRole("heading", { name: "The journal cannot be read" })).toBeVisible();
    await expect(page.getByTestId("journal-error")).toContainText("was deleted or moved away");
    await expect(page.getByTestId("bot-card")).toHaveCount(0);

    fs.renameSync(moved, j.file);
    j.beat();
    await expect(card(page, "gamma").locator("[data-status]")).toHaveText("running", { timeout: 20_000 });
    const away = page.getByText(/the journal was away from \w+ \d+ [\d:]+ UTC to [\d:]+ UTC\./i);
    await expect(away).toBeVisible();
    // One line, what to check a click away: on a phone the whole of it took six lines above the title.
    const notice = page.getByTestId("journal-notice");
    await expect(notice.getByText("If it was restored from a backup, restart the bot")).toBeHidden();
    await notice.getByText("What to check").click();
    await expect(notice.getByText("If it was restored from a backup, restart the bot")).toBeVisible();
    const first = await away.innerText();

    // Away again within the notice's ten minutes: the first absence is not shown beside the second.
    fs.renameSync(j.file, moved);
    await expect(page.getByTestId("alarm-banner")).toContainText("was deleted or moved away while the console was reading it", { timeout: 15_000 });
    await expect(away).toHaveCount(0);
    fs.renameSync(moved, j.file);
    j.beat();
    await expect(card(page, "gamma").locator("[data-status]")).toHaveText("running", { timeout: 20_000 });
    await expect(away).toBeVisible();
    expect(await away.innerText()).not.toBe(first);
  } finally {
    if (fs.existsSync(moved)) fs.renameSync(moved, j.file);
    await server.stop();
    j.close();
  }
});

/** How many times the page says the fix of a journal moved away: once is one problem box. */
async function fixesSaid(page: Page): Promise<number> {
  return ((await page.locator("body").innerText()).match(/put the journal back at this path/g) ?? []).length;
}

test("pages left open while the journal is away: nothing reads as in sync now, the problem is said once, and each says the journal was away once it is back", async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  const j = await healthyJournal();
  const server = await startConsole({ journal: j.file });
  const moved = path.join(tempDir("moved"), "journal.db");
  try {
    j.beat();
    await page.goto(server.url);
    await expect(card(page, "gamma").locator("[data-status]")).toHaveText("running");
    await expect(page.locator('[data-testid="sync-state"][data-state="in-sync"]').first()).toHaveText("in sync");
    const others = new Map<string, Page>();
    for (const route of ["/doubtful", "/bots/gamma", "/breakers", "/bots/gamma/symbols/AAPL"]) {
      const other = await context.newPage();
      await other.goto(`${server.url}${route}`);
      await expect(other.getByTestId("live-status").first()).toContainText("live");
      others.set(route, other);
    }

    fs.renameSync(j.file, moved);
    const banner = page.getByTestId("alarm-banner");
    await expect(banner).toContainText("The console cannot read the journal right now", { timeout: 15_000 });
    // A symbol's last known state, dated, never "in sync" as a fact of now; the card's last cycle too.
    await expect(page.locator('[data-testid="sync-state"][data-state="in-sync"]')).toHaveCount(0);
    await expect(page.locator('[data-testid="sync-state"][data-state="unknown"]').first()).toHaveText(/^unknown: in sync at \d\d:\d\d:\d\d UTC$/);
    // On a phone the row stays short: the row says unknown and since when; the banner says why.
    await page.setViewportSize({ width: 390, height: 844 });
    const row = page.locator('main [data-testid="symbol-row"][data-drift="none"]').first();
    await expect(row).toHaveText(/^gamma\s+\S+\s+book [+-]?[\d.,]+\s+unknown: in sync at \d\d:\d\d:\d\d UTC$/, { useInnerText: true });
    // Two lines at most, the symbol's and since when (the whole sentence made it three).
    expect((await row.boundingBox())!.height).toBeLessThan(70);
    // The card's last cycle says "not current" in full on a phone too: the line is cut short only for a skip's why.
    const reconciled = card(page, "gamma").getByTestId("reconciled");
    expect(await reconciled.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 720 });
    await expect(card(page, "gamma").getByTestId("reconciled")).toHaveText(/^clean at \d\d:\d\d:\d\d UTC, \d+ s ago \(when last read; not current\)$/);
    // Its counts too: none doubtful, no symbol in drift, when last read.
    await expect(card(page, "gamma").getByTestId("doubtful-count")).toHaveText("none (when last read)");
    await expect(card(page, "gamma").getByTestId("drift-count")).toHaveText("no symbol (when last read)");
    // The banner's title says the console cannot read it; the cause is the problem, then the fix once.
    await expect(banner).not.toContainText("cannot read right now");
    await expect.poll(() => fixesSaid(page)).toBe(1);
    for (const other of others.values()) await expect.poll(() => fixesSaid(other), { timeout: 15_000 }).toBe(1);
    const fresh = await context.newPage();
    await fresh.goto(`${server.url}/doubtful`);
    await expect(fresh.getByRole("heading", { name: "The journal cannot be read" })).toBeVisible();
    await expect(fresh.getByTestId("halt-banner")).toContainText("the journal cannot be read (what is wrong and the fix: below)");
    await expect.poll(() => fixesSaid(fresh)).toBe(1);
    await fresh.close();

    fs.renameSync(moved, j.file);
    j.beat();
    const away = /the journal was away from \w+ \d+ [\d:]+ UTC to [\d:]+ UTC\./i;
    await expect(card(page, "gamma").locator("[data-status]")).toHaveText("running", { timeout: 20_000 });
    await expect(page.getByText(away)).toBeVisible();
    for (const [route, other] of others) {
      await expect(other.getByText(away), route).toBeVisible({ timeout: 20_000 });
    }
  } finally {
    if (fs.existsSync(moved)) fs.renameSync(moved, j.file);
    await server.stop();
    j.close();
  }
});

test("another process holding an exclusive lock for 10 s: the console keeps answering, names the lock, and recovers", async ({ page }) => {
  test.setTimeout(90_000);
  const j = await healthyJournal();
  j.beat();
  // A WAL journal can be locked exclusively only while no one else has it open: the bot stops first.
  j.close();
  const holder = startFault(["lock", j.file, "wal", "10000"]);
  const server = await (async () => {
    await holder.waitFor("locked");
    return startConsole({ journal: j.file });
  })();
  try {
    expect(server.output()).toMatch(/driftwatch: journal .*: is locked by another process \(since /);
    await page.goto(server.url);
    await expect(page.getByRole("heading", { name: "The journal cannot be read" })).toBeVisible();
    await expect(page.getByTestId("journal-error")).toContainText(/is locked by another process \(since \d{4}-\d\d-\d\dT[\d:.]+Z\)/);
    await expect(page.getByTestId("journal-error")).toContainText(/Fix: find the process holding it \("fuser .*" or "lsof .*"\)/);
    await expectNothingRunning(page);

    // Every request is answered while the lock lasts, well within the 5 s a write may wait for it.
    for (let i = 0; i < 3 && !holder.output().includes("released"); i++) {
      const res = await page.request.get(`${server.url}/api/overview`, { timeout: 4_000 });
      expect(res.status()).toBe(503);
      expect((await res.json()).error.code).toBe("locked");
    }

    await holder.waitFor("released", 30_000);
    await expect(card(page, "gamma").locator("[data-status]")).toHaveText("running", { timeout: 20_000 });
    await expect(page.getByTestId("journal-error")).toHaveCount(0);
  } finally {
    await holder.kill();
    await server.stop();
  }
});

test("a copy of a journal with a damaged page: the damage and the fix, never a stack trace or a running bot", async ({ page }) => {
  const j = await healthyJournal();
  j.beat();
  const copy = corruptCopy(j.file, "bots");
  j.close();
  const server = await startConsole({ journal: copy });
  try {
    await page.goto(server.url);
    await expect(page.getByRole("heading", { name: "The journal cannot be read" })).toBeVisible();
    await expect(page.getByTestId("journal-error")).toContainText("is damaged: SQLite found corrupt pages (SQLITE_CORRUPT");
    await expect(page.getByTestId("journal-error")).toContainText(
      /Fix: stop the bot, keep a copy of the file, run "npm run journal -- check .*" and restore the journal from the last good backup/,
    );
    await expect(page.getByTestId("bot-card")).toHaveCount(0);
    await expectNothingRunning(page);
    const api = await page.request.get(`${server.url}/api/overview`);
    expect(api.status()).toBe(503);
    expect((await api.json()).error).toMatchObject({ code: "corrupt" });
  } finally {
    await server.stop();
  }
});

test("bot clocks ahead of and behind the console's are named, and neither bot shows as running", async ({ page }) => {
  const file = sqliteCliJournal("clock");
  const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();
  sqliteCli(
    file,
    `INSERT INTO bots VALUES ('fast-bot', 'sim', 'fb', '${ahead(600_000)}'), ('slow-bot', 'sim', 'sb', '${isoAgo(300_000)}');
     INSERT INTO breakers VALUES ('fast-bot', 0, NULL, '${isoAgo(3_600_000)}', 'bot', 1), ('slow-bot', 0, NULL, '${isoAgo(3_600_000)}', 'bot', 1);
     INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES ('fast-bot', '${ahead(598_000)}', 'clean', 0), ('slow-bot', '${isoAgo(300_000)}', 'clean', 0);`,
  );
  const server = await startConsole({ journal: file });
  const bot = new Database(file, { timeout: 5_000 });
  // The slow bot is alive: it beats every 300 ms, by a clock five minutes behind.
  const beating = setInterval(() => bot.prepare(`UPDATE bots SET heartbeat_at = ? WHERE bot_id = 'slow-bot'`).run(isoAgo(300_000)), 300);
  try {
    await page.goto(server.url);
    const banner = page.getByTestId("alarm-banner");
    await expect(banner).toContainText(/fast-bot: heartbeat is \d+ s in the future: bot clock ahead of the console's/);
    await expect(banner).toContainText(/slow-bot: bot clock behind the console's: its heartbeat keeps moving but reads \d+ s old/, { timeout: 15_000 });
    await expect(card(page, "fast-bot").locator("[data-status]")).toHaveText(/unknown/i);
    // Amber and dashed, as loud as STALE: in a quiet grey it read as nothing to look at.
    await expect(card(page, "fast-bot").locator("[data-status]")).toHaveCSS("border-top-style", "dashed");
    await expectNothingRunning(page);
  } finally {
    clearInterval(beating);
    bot.close();
    await server.stop();
  }
});
