/**
 * A size-drift halt cleared through a book correction, in Chromium against the production build:
 * the bot's book says +148 AAPL, the venue +89 (closed by hand), the breaker is tripped and no
 * reconciliation can come out clean. The operator corrects the book on the bot page; the bot, a real
 * JournalWriter cycling in this process on the same journal file, counts the correction and
 * reconciles clean; the checklist turns met; the operator clears; the bot sends a new entry. A
 * refused correction keeps its note.
 */
import { botOnJournal } from "../helpers/e2e/journals";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SimExchange } from "@/lib/exchange/simulator";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { noHorizontalScroll, noSeriousAxeViolations } from "../helpers/e2e/a11y";
import { addAccountWithCli, signIn } from "../helpers/e2e/accounts";
import { sqliteCli, tempDir } from "../helpers/journal";

const SECRET = "book-correction-spec-session-secret-longer-than-32";
const ana = { name: "ana", password: "ana's long password here" };
const SYMBOLS = [
  { symbol: "AAPL", qtyStep: 1, price: 190 },
  { symbol: "BTCUSDT", qtyStep: 0.001, price: 60_000 },
];

/** Bot `beta` on a journal near the wall clock: +148 AAPL bought, 59 closed by hand, tripped on the drift. */
async function sizeDriftJournal() {
  const sim = new SimExchange({ seed: 5, symbols: SYMBOLS, startAt: new Date(Date.now() - 5 * 60_000) });
  const { file, writer, close } = botOnJournal({ sim, symbols: SYMBOLS, botId: "beta", prefix: "be1" });
  const symbols = SYMBOLS.map((s) => s.symbol);
  await writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 148, bar: sim.now().toISOString() });
  while (sim.now().getTime() < Date.now() - 60_000) {
    await writer.reconcile({ symbols });
    writer.heartbeat();
    sim.advance(15_000);
  }
  sim.setPositionBehindBot("AAPL", 89);
  /** One cycle of the bot at the wall clock's now: heartbeat and reconciliation. */
  const cycle = async () => {
    sim.advance(Math.max(1, Date.now() - sim.now().getTime()));
    writer.heartbeat();
    return writer.reconcile({ symbols });
  };
  await cycle();
  return { file, writer, sim, cycle, close };
}

test.describe.configure({ mode: "serial" });

test.describe("a size-drift halt cleared through a book correction", () => {
  let server: ConsoleServer;
  let bot: Awaited<ReturnType<typeof sizeDriftJournal>>;

  test.beforeAll(async () => {
    bot = await sizeDriftJournal();
    const accountsDb = path.join(tempDir("e2e-acc"), "accounts.db");
    addAccountWithCli(accountsDb, { name: ana.name, role: "operator", password: ana.password });
    server = await startConsole({ journal: bot.file, env: { DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_SESSION_SECRET: SECRET } });
  });
  test.afterAll(async () => {
    await server?.stop();
    bot?.close();
  });

  test("a refused correction keeps the typed note", async ({ page }) => {
    expect(bot.writer.breaker()).toMatchObject({ halted: true, reason: "size drift AAPL: book +148 vs exchange +89" });
    await signIn(page, server.url, ana);
    await page.goto(`${server.url}/bots/beta`);
    const main = page.locator("main");
    await expect(main.getByTestId("checklist")).toContainText("AAPL book +148 vs exchange +89");
    await expect(main.getByTestId("checklist")).toContainText("Correct the book below, or put the position right on the venue");
    const line = main.locator('[data-testid="book-line"][data-symbol="AAPL"]');
    // No choice made: refused, and the note is still there to send again.
    await line.getByLabel("What you checked on the venue").fill("desk closed 59 AAPL by hand on the venue");
    await line.getByRole("button", { name: "Correct the book of AAPL" }).click();
    await expect(line.getByTestId("action-refused")).toHaveAttribute("data-code", "invalid");
    await expect(line.getByText(/Choose how to correct the book/)).toBeVisible();
    await expect(line.getByLabel("What you checked on the venue")).toHaveValue("desk closed 59 AAPL by hand on the venue");
    // A choice made and a note too short: both stay.
    await line.getByLabel(/I flattened it on the venue/).check();
    await line.getByLabel("What you checked on the venue").fill("ok");
    await line.getByRole("button", { name: "Correct the book of AAPL" }).click();
    await expect(line.getByText(/Say what you checked on the venue/)).toBeVisible();
    await expect(line.getByLabel(/I flattened it on the venue/)).toBeChecked();
    await expect(line.getByLabel("What you checked on the venue")).toHaveValue("ok");
    // Readable on a phone, the refusal and the kept note included.
    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(page);
    await noSeriousAxeViolations(page);
  });

  test("the operator corrects the book, the bot reconciles clean, the halt is cleared and the bot trades again", async ({ page }) => {
    await signIn(page, server.url, ana);
    await page.goto(`${server.url}/bots/beta`);
    const main = page.locator("main");
    const line = main.locator('[data-testid="book-line"][data-symbol="AAPL"]');
    await line.getByLabel("Adopt the exchange's +89: the bot's book goes from +148 to +89.").check();
    await line.getByLabel("What you checked on the venue").fill("desk closed 59 AAPL by hand on the venue");
    await line.getByRole("button", { name: "Correct the book of AAPL" }).click();
    await expect(line.getByTestId("correction-pending")).toContainText(
      /^Corrected by operator:ana at .+: book \+148 → \+89; the bot applies it on its next cycle\.$/,
    );
    const correction = main.locator('[data-testid="book-correction"][data-symbol="AAPL"]');
    await expect(correction).toContainText("operator:ana adopted the exchange's size for AAPL, book +148 → +89");
    await expect(correction).toContainText("“desk closed 59 AAPL by hand on the venue”");
    await noSeriousAxeViolations(page);
    // The correction acknowledged the drift: only the reconciliation is left (the heartbeat, beaten
    // only by the test's own cycles, may have gone stale meanwhile on a slow machine).
    const checklist = main.getByTestId("checklist");
    await expect(checklist.locator('li[data-met="false"]:not([data-item="heartbeat"])')).toHaveCount(1);
    await expect(checklist.locator('li[data-item="drifts"]')).toHaveAttribute("data-met", "true");

    // The bot's next cycle counts the correction: clean.
    expect((await bot.cycle()).outcome).toBe("clean");
    await expect(correction.getByTestId("correction-status")).toContainText("Applied: in sync since");
    await expect(main.getByTestId("book-in-sync")).toHaveAttribute("data-state", "in-sync");
    await expect(checklist.locator('li[data-met="false"]')).toHaveCount(0);

    await main.getByLabel("Why it is safe to resume").fill("book corrected to the venue's 89 AAPL; clean cycle since");
    await main.getByLabel(/Type the bot id to confirm/).fill("beta");
    await main.getByRole("button", { name: "Clear halt" }).click();
    await expect(main.getByTestId("action-ok").filter({ hasText: "Cleared" })).toBeVisible();
    await expect(main.getByTestId("not-halted")).toBeVisible();

    // The bot's next entry goes through.
    const next = await bot.writer.sendOnce({ strategy: "trend", symbol: "BTCUSDT", side: "buy", qty: 0.01, bar: new Date().toISOString() });
    expect(next.kind).toBe("placed");
    expect((await bot.cycle()).outcome).toBe("clean");

    // A cycle that cannot read the venue's positions compares nothing: the book is not said to agree now.
    bot.sim.inject({ on: "positions", fault: "fetch_fail" });
    expect((await bot.cycle()).outcome).toBe("error");
    await expect(main.getByTestId("book-in-sync")).toHaveAttribute("data-state", "not-compared-since");
    await expect(main.getByTestId("book-in-sync")).toContainText(/^Not compared since .*: the bot.s latest cycle, at .*, failed and did not compare the books/);
    // One failed read is a blip: the card keeps its word and counts how long since the books were compared.
    const card = page.getByTestId("bot-card").first();
    await expect(card.locator("[data-status]")).toHaveAttribute("data-status", "running");
    // And why, where before only the bot's page said a cycle had failed, and not how.
    await expect(card.getByTestId("reconciled")).toHaveText(/^error, \d+ s ago \(fetch positions failed: fetching positions failed\)$/);
    await expect(card.getByTestId("compared-age")).toHaveText(/^\d+ s ago$/);
    // On the overview, on a phone, the skip changes the card's words, not its height: one line, its
    // why in full in the title (wrapped, each skip grew the card a line or two and shrank it again).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(server.url);
    const overviewCard = page.locator('[data-testid="bot-card"][data-bot="beta"]');
    const reconciled = overviewCard.getByTestId("reconciled");
    await expect(reconciled).toHaveText(/^error, \d+ s ago \(fetch positions failed: fetching positions failed\)$/);
    await expect(reconciled).toHaveAttribute("title", "fetch positions failed: fetching positions failed");
    expect((await reconciled.boundingBox())!.height).toBe((await overviewCard.getByTestId("heartbeat-age").boundingBox())!.height);

    // A cycle skipped with orders in flight (fills settling), as a bot in any language writes it:
    // the short form fits the same one line, its whole why in the title, the card no taller.
    const cardHeight = (await overviewCard.boundingBox())!.height;
    sqliteCli(
      bot.file,
      `INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight, error) VALUES ('beta', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'skipped', 2, NULL);`,
    );
    await expect(reconciled).toHaveText(/^skipped, \d+ s ago \(2 in flight\)$/);
    await expect(reconciled).toHaveAttribute("title", "2 orders in flight");
    expect((await reconciled.boundingBox())!.height).toBe((await overviewCard.getByTestId("heartbeat-age").boundingBox())!.height);
    expect((await overviewCard.boundingBox())!.height).toBe(cardHeight);
    // Skipped cycles compare nothing: the card still counts since the last one that did.
    await expect(overviewCard.getByTestId("compared-age")).toHaveText(/^\d+ s ago$/);
  });
});
