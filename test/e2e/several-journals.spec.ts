import fs from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import Database from "better-sqlite3";
import { healthyJournal } from "../helpers/e2e/journals";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

/** Trip or clear a bot's breaker as its bot would, in its own connection. */
function setHalted(file: string, halted: boolean) {
  const db = new Database(file);
  db.pragma("busy_timeout = 2000");
  db.prepare(`UPDATE breakers SET halted = ?, reason = ?, changed_at = ?, version = version + 1`).run(
    halted ? 1 : 0,
    halted ? "size drift on BTCUSDT" : null,
    new Date().toISOString(),
  );
  db.close();
}

/** The name DRIFTWATCH_JOURNAL gives a journal.db among others: its folder's and its own. */
const sourceName = (file: string) => `${path.basename(path.dirname(file))}-journal`;

test.describe("one console on three journals", () => {
  let server: ConsoleServer;
  const journals: Awaited<ReturnType<typeof healthyJournal>>[] = [];

  test.beforeAll(async () => {
    journals.push(
      await healthyJournal({ botId: "north", prefix: "no1" }),
      await healthyJournal({ botId: "south", prefix: "so1" }),
      await healthyJournal({ botId: "west", prefix: "we1" }),
    );
    server = await startConsole({ journal: journals.map((j) => j.file).join(",") });
  });
  test.afterAll(async () => {
    await server?.stop();
    for (const j of journals) j.close();
  });

  test("shows a broken journal's banner and its bot UNKNOWN while the others stay live, and recovers by itself", async ({ page }) => {
    for (const j of journals) j.beat();
    await page.goto(server.url);
    const card = (bot: string) => page.locator(`[data-testid="bot-card"][data-bot="${bot}"]`);
    for (const bot of ["north", "south", "west"]) await expect(card(bot)).toBeVisible();
    await expect(page.getByTestId("source-problem")).toHaveCount(0);

    const broken = journals[2]!.file;
    // West is halted when its journal goes away: it must stay on the red banner, as of its last read.
    setHalted(broken, true);
    const halted = page.getByTestId("halted-summary");
    await expect(halted).toContainText("west");
    fs.renameSync(broken, `${broken}.away`);
    await expect(halted.getByTestId("last-known-halt")).toContainText(`journal ${sourceName(broken)} cannot be read now`);
    await expect(halted).toContainText(/west \(halted when its journal was last read, at \d\d:\d\d:\d\d UTC/);
    await page.screenshot({ path: test.info().outputPath("halted-journal-gone-desktop.png"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(halted).toBeInViewport();
    await page.screenshot({ path: test.info().outputPath("halted-journal-gone-phone.png") });
    await page.setViewportSize({ width: 1280, height: 800 });
    const banner = page.locator(`[data-testid="source-problem"][data-source="${sourceName(broken)}"]`);
    await expect(banner).toBeVisible();
    await expect(banner).toContainText("its bots are UNKNOWN");
    await expect(banner).toContainText("deleted or moved away");
    await expect(card("west").locator("[data-status]")).toHaveText("UNKNOWN");
    // What its journal holds is unknown, never "never" or "none".
    for (const fact of ["heartbeat-age", "reconciled", "doubtful-count"])
      await expect(card("west").getByTestId(fact)).toHaveText("unknown (its journal cannot be read)");
    // The others are still read, and still live.
    for (const bot of ["north", "south"]) await expect(card(bot).locator("[data-status]")).not.toHaveText("UNKNOWN");
    await expect(page.getByTestId("live-status")).toContainText(/live · updated \d+ s ago/);
    // The fix once, not inside the message and again below it.
    expect((await banner.innerText()).match(/Fix/g)).toHaveLength(1);
    // Each card names its journal, the unreadable one's too (with no empty exchange or id prefix).
    await expect(card("north").getByTestId("bot-card-where")).toContainText(`journal ${sourceName(journals[0]!.file)} · `);
    await expect(card("west").getByTestId("bot-card-where")).toHaveText(`journal ${sourceName(broken)}`);
    // An empty list does not vouch for the journal it cannot read.
    await page.goto(`${server.url}/doubtful`);
    // Another page's banner: the halt as last read, then its cause, one sentence with no brackets set side by side.
    const westHalt = page.getByTestId("halt-banner").getByTestId("halted-bot");
    await expect(westHalt).toHaveText(
      new RegExp(
        `^west \\(halted when its journal was last read, at \\d\\d:\\d\\d:\\d\\d UTC; journal ${sourceName(broken)} cannot be read now, so nobody can tell whether it still is\\) — size drift on BTCUSDT\\.$`,
      ),
    );
    await page.screenshot({ path: test.info().outputPath("halted-journal-gone-banner.png") });
    await expect(page.getByTestId("no-doubtful")).toContainText(`in the journals that can be read; ${sourceName(broken)} cannot be read`);
    await expect(page.getByTestId("no-doubtful")).not.toContainText("every order is settled");
    // The bot's own page names its journal.
    await page.goto(`${server.url}/bots/west`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Journal ${sourceName(broken)} cannot be read`);
    await page.goto(server.url);

    fs.renameSync(`${broken}.away`, broken);
    await expect(page.getByTestId("source-problem")).toHaveCount(0);
    // Read again: halted as the journal says, no longer "as of the last read"; then running again.
    await expect(halted).toContainText("west");
    await expect(page.getByTestId("last-known-halt")).toHaveCount(0);
    setHalted(broken, false);
    await expect(halted).toHaveCount(0);
    await expect(card("west").locator("[data-status]")).not.toHaveText("UNKNOWN");
    // Not halted when it goes away: unknown, with what the last read showed and when, never "not halted".
    fs.renameSync(broken, `${broken}.away`);
    await expect(card("west").locator("[data-status]")).toHaveText("UNKNOWN");
    await expect(card("west").getByTestId("breaker-state")).toHaveText(
      /^unknown: not halted when its journal was last read, at \d\d:\d\d:\d\d UTC \(it cannot be read now\)$/,
    );
    fs.renameSync(`${broken}.away`, broken);
    await expect(card("west").locator("[data-status]")).not.toHaveText("UNKNOWN");
    await expect(card("west").getByTestId("breaker-state")).toHaveText("not halted");
  });

  test("a bot's page names its journal, and a halt the journal records no trip for says no story tells it", async ({ page }) => {
    const south = journals[1]!.file;
    const card = page.locator('main [data-testid="bot-card"][data-bot="south"]');
    await page.goto(`${server.url}/bots/south`);
    await expect(card.getByTestId("bot-card-where")).toHaveText(`journal ${sourceName(south)} · sim · order ids start so1-`);
    // Halted by a writer that skipped the trip's event: nothing to link to, and said so.
    setHalted(south, true);
    try {
      await expect(card.getByTestId("halt-reason")).toContainText("size drift on BTCUSDT");
      await expect(card.getByTestId("halt-story-none")).toHaveText("No trip is recorded for this halt in the journal, so no incident tells its story.");
      await expect(card.getByTestId("halt-story")).toHaveCount(0);
    } finally {
      setHalted(south, false);
    }
  });

  test("a bot's page open when its journal goes away says the breaker only as last read, and comes back by itself when the journal does", async ({ page }) => {
    const north = journals[0]!.file;
    const main = page.locator("main");
    const card = main.locator('[data-testid="bot-card"][data-bot="north"]');
    await page.goto(`${server.url}/bots/north`);
    await expect(card.getByTestId("breaker-state")).toHaveText("not halted");
    await expect(main.getByTestId("not-halted")).toHaveText("This bot is not halted. Nothing to clear.");
    fs.renameSync(north, `${north}.away`);
    try {
      // The page's data is no longer current: not halted is what the last read said, not a fact of now.
      await expect(card.getByTestId("breaker-state")).toHaveText(/^unknown: not halted when last read, at \d\d:\d\d:\d\d UTC \(not current\)$/);
      await expect(main.getByTestId("not-halted")).toHaveText(
        /^Unknown: this bot was not halted when last read, at \d\d:\d\d:\d\d UTC \(not current\)\. Nothing to clear then; look again once this page updates\.$/,
      );
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 844 });
        await page.screenshot({ path: test.info().outputPath(`bot-page-journal-gone-${width}.png`), fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 800 });
      // Loaded while the journal is away: the journal's problem, and the page says it checks again by itself.
      await page.reload();
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Journal ${sourceName(north)} cannot be read`);
      await expect(page.getByRole("alert").filter({ hasText: "cannot be read" }).first()).toContainText(
        "This page checks again every 2 s and comes back by itself once the journal can be read.",
      );
      // The retry waits for this journal to be readable, not for any answer of the overview (which the other journals give).
      await page.waitForTimeout(5_000);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Journal ${sourceName(north)} cannot be read`);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 844 });
        await page.screenshot({ path: test.info().outputPath(`bot-page-journal-unreadable-${width}.png`), fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    } finally {
      fs.renameSync(`${north}.away`, north);
    }
    // Back with no reload.
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Bot north", { timeout: 10_000 });
    await expect(card.getByTestId("breaker-state")).toHaveText("not halted");
    await expect(main.getByTestId("not-halted")).toHaveText("This bot is not halted. Nothing to clear.");
  });

  test("a halted bot's checklist keeps each duration on one line at phone width", async ({ page }) => {
    const south = journals[1]!.file;
    setHalted(south, true);
    try {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${server.url}/bots/south`);
      const beat = page.locator('[data-testid="checklist"] [data-item="heartbeat"]');
      await expect(beat).toContainText("limit");
      const durations = beat.getByTestId("duration");
      // The heartbeat's age and its limit.
      await expect(durations).toHaveCount(2);
      for (const d of await durations.all()) {
        expect(await d.evaluate((el) => getComputedStyle(el).whiteSpace)).toBe("nowrap");
        // One line box: a duration split across lines has two.
        expect(await d.evaluate((el) => el.getClientRects().length)).toBe(1);
      }
      // The text itself keeps ordinary spaces (it is copied into CSV and Markdown elsewhere).
      expect(await beat.innerText()).not.toContain("\u00a0");
      await page.screenshot({ path: test.info().outputPath("bot-page-checklist-390.png"), fullPage: true });
    } finally {
      setHalted(south, false);
    }
  });

  test("the audit page lists each journal's own chain and shows no single head that would stand for all of them", async ({ page }) => {
    await page.goto(`${server.url}/audit`);
    const chains = page.getByTestId("audit-chain");
    await expect(chains).toHaveCount(3);
    for (const j of journals) await expect(page.locator(`[data-testid="audit-chain"][data-source="${sourceName(j.file)}"]`)).toContainText("0 entries, head");
    await expect(page.getByTestId("audit-head")).toHaveCount(0);
    await expect(page.getByText("each journal keeps its own chain")).toBeVisible();
  });
});

/** A trip as a bot writes it, in its own connection: the drifting cycle, then the breaker event naming it. */
function writeTrip(file: string, botId: string, at: string, reason: string): void {
  const db = new Database(file);
  db.pragma("busy_timeout = 2000");
  db.transaction(() => {
    const cycle = db.prepare(`INSERT INTO reconciliations (bot_id, at, outcome) VALUES (?, ?, 'drift')`).run(botId, at).lastInsertRowid;
    db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES (?, ?, 'trip', ?, 'bot', ?)`).run(
      botId,
      at,
      reason,
      cycle,
    );
  })();
  db.close();
}

test.describe("the incidents of three journals", () => {
  let server: ConsoleServer;
  const journals: Awaited<ReturnType<typeof healthyJournal>>[] = [];

  test.beforeAll(async () => {
    journals.push(
      await healthyJournal({ botId: "east", prefix: "ea1" }),
      await healthyJournal({ botId: "harbour", prefix: "ha1" }),
      await healthyJournal({ botId: "ridge", prefix: "ri1" }),
    );
    const ago = (min: number) => new Date(Date.now() - min * 60_000).toISOString();
    // Each journal numbers its own trips: east's and harbour's first are both 1.
    writeTrip(journals[0]!.file, "east", ago(20), "position in ETHUSDT the bot never opened");
    writeTrip(journals[1]!.file, "harbour", ago(10), "size drift on BTCUSDT");
    server = await startConsole({ journal: journals.map((j) => j.file).join(",") });
  });
  test.afterAll(async () => {
    await server?.stop();
    for (const j of journals) j.close();
  });

  test("lists every journal's incidents, opens each by its journal's name, and names a journal it cannot read instead of showing a quiet hour", async ({
    page,
  }) => {
    const [east, harbour] = journals.map((j) => sourceName(j.file));
    await page.goto(`${server.url}/incidents`);
    const rows = page.getByTestId("incident-row");
    await expect(rows).toHaveCount(2);
    // Newest first, each with its journal.
    await expect(rows.nth(0)).toHaveAttribute("data-incident", `${harbour}-1`);
    await expect(rows.nth(0).getByTestId("row-journal")).toHaveText(`journal ${harbour}`);
    await expect(rows.nth(1)).toHaveAttribute("data-incident", `${east}-1`);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: test.info().outputPath("incidents-several-journals-phone.png"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Each link says which bot and when, so a bot's several incidents are told apart.
    await expect(rows.nth(1).getByTestId("incident-link")).toHaveText(/^east, halted .*\d\d:\d\d:\d\d UTC$/);
    await rows.nth(1).getByRole("link", { name: "east" }).click();
    await expect(page).toHaveURL(new RegExp(`/incidents/${east}-1$`));
    await expect(page.getByRole("heading", { level: 1 })).toContainText(`Incident ${east}-1: east`);
    await expect(page.getByTestId("incident-status")).toHaveText("OPEN");
    const postmortem = await page.request.get(`${server.url}${await page.getByTestId("postmortem").getAttribute("href")}`);
    expect(postmortem.status()).toBe(200);
    expect(await postmortem.text()).toContain("east halted");

    // A bare number two journals have: a choice, never a guess.
    await page.goto(`${server.url}/incidents/1`);
    await expect(page.getByTestId("incident-choices").getByRole("link")).toHaveText([`${east}-1`, `${harbour}-1`]);
    const ambiguous = await page.request.get(`${server.url}/api/incidents/1/postmortem`);
    expect(ambiguous.status()).toBe(409);

    // Minute by minute: both journals' trips in one timeline, each event naming its journal.
    await page.goto(`${server.url}/incidents?view=window`);
    const trips = page.locator('[data-testid="incident-event"][data-kind="trip"]');
    await expect(trips).toHaveCount(2);
    await expect(trips.nth(0).getByTestId("event-journal")).toHaveText(`journal ${east}`);
    await expect(trips.nth(1).getByTestId("event-journal")).toHaveText(`journal ${harbour}`);
    await trips.nth(1).getByTestId("incident-story-link").click();
    await expect(page).toHaveURL(new RegExp(`/incidents/${harbour}-1$`));

    // One bot's list reads its journal, and its filter still offers every journal's bots.
    await page.goto(`${server.url}/incidents?bot=harbour`);
    await expect(rows).toHaveCount(1);
    await expect(page.getByRole("combobox", { name: "Bot" }).locator("option")).toHaveText(["every bot", "east", "harbour", "ridge"]);
    await page.goto(`${server.url}/incidents?bot=nobody`);
    await expect(page.getByTestId("no-incidents")).toHaveText("No incidents for nobody: no bot of that name is in the journals that could be read.");
    // The breakers page's review link opens the story of its own journal's trip, and minute by minute lands on that trip in the window.
    await page.goto(`${server.url}/breakers`);
    await expect(page.locator('[data-bot="harbour"]').getByTestId("review-incident").first()).toHaveAttribute("href", `/incidents/${harbour}-1`);
    const review = page.locator('[data-bot="harbour"]').getByTestId("review-minutes").first();
    await expect(review).toHaveAttribute("href", new RegExp(`#${harbour}/breaker-1$`));
    await review.click();
    await expect(page.locator(`[id="${harbour}/breaker-1"]`)).toBeInViewport();
    // An id no journal has: said as such.
    expect((await page.goto(`${server.url}/incidents/${east}-9`))?.status()).toBe(404);
    await expect(page.getByTestId("no-such-incident")).toContainText("No incident has this id: no trip of any bot has that number");

    // Harbour's journal moved away: its banner on the list and the window, east's incident still there.
    const file = journals[1]!.file;
    fs.renameSync(file, `${file}.away`);
    try {
      await page.goto(`${server.url}/incidents`);
      const banner = page.locator(`[data-testid="source-problem"][data-source="${harbour}"]`);
      await expect(banner).toContainText("what happened in it is not shown here");
      await expect(rows).toHaveCount(1);
      await expect(rows.nth(0)).toHaveAttribute("data-incident", `${east}-1`);
      await page.goto(`${server.url}/incidents?view=window`);
      await expect(banner).toBeVisible();
      await expect(trips).toHaveCount(1);
      const exported = await page.request.get(`${server.url}${await page.getByTestId("export-json").getAttribute("href")}`);
      expect(exported.headers()["x-driftwatch-unread-journals"]).toBe(harbour);
      expect((await exported.json()).unreadJournals).toEqual([{ journal: harbour, problem: expect.stringContaining("moved away") }]);
      const csv = await page.request.get(`${server.url}${await page.getByTestId("export-csv").getAttribute("href")}`);
      expect(csv.headers()["content-disposition"]).toMatch(/-incomplete\.csv"$/);
      await page.goto(`${server.url}/incidents/${harbour}-1`);
      await expect(page.getByRole("heading", { level: 1 })).toContainText("cannot be read");
      await expect(page.getByRole("link", { name: "← All incidents" })).toBeVisible();
      // A bare number found in east alone is not taken for the only one while harbour cannot be read.
      await page.goto(`${server.url}/incidents/1`);
      await expect(page.getByTestId("incident-choices").getByRole("link")).toHaveText([`${east}-1`]);
      await expect(page.locator(`[data-testid="source-problem"][data-source="${harbour}"]`)).toContainText("it may hold an incident 1 too");
      expect((await page.request.get(`${server.url}/api/incidents/1/postmortem`)).status()).toBe(409);
    } finally {
      fs.renameSync(`${file}.away`, file);
    }
    await page.goto(`${server.url}/incidents`);
    await expect(rows).toHaveCount(2);
  });

  test("a halted bot's page names its journal and links to the story of its halt, by the journal's name", async ({ page }) => {
    const east = sourceName(journals[0]!.file);
    // East's bot halts on its trip (writeTrip wrote the event; the breaker row is the bot's own write).
    setHalted(journals[0]!.file, true);
    try {
      await page.goto(`${server.url}/bots/east`);
      const card = page.locator('main [data-testid="bot-card"][data-bot="east"]');
      await expect(card.getByTestId("bot-card-where")).toContainText(`journal ${east} · `);
      const story = card.getByTestId("halt-story");
      await expect(story).toHaveText(`The story of this halt (incident ${east}-1)`);
      await expect(story).toHaveAttribute("href", `/incidents/${east}-1`);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 844 });
        await page.screenshot({ path: test.info().outputPath(`bot-page-halt-story-${width}.png`), fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 800 });
      await story.click();
      await expect(page).toHaveURL(new RegExp(`/incidents/${east}-1$`));
      await expect(page.getByRole("heading", { level: 1 })).toContainText(`Incident ${east}-1: east`);
    } finally {
      setHalted(journals[0]!.file, false);
    }
  });
});

test("a console on two journals that hold the same bot id stops at start, naming both sources", async () => {
  const a = await healthyJournal({ botId: "twin", prefix: "tw1" });
  const b = await healthyJournal({ botId: "twin", prefix: "tw2" });
  try {
    const start = startConsole({ journal: `${a.file},${b.file}`, timeoutMs: 60_000 });
    await expect(start).rejects.toThrow(/console exited with 1/);
    await expect(start).rejects.toThrow(
      new RegExp(`bot twin is in two journals: source ${sourceName(a.file)} \\(${a.file}\\) and source ${sourceName(b.file)} \\(${b.file}\\)`),
    );
  } finally {
    a.close();
    b.close();
  }
});
