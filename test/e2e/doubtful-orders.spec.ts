/**
 * The doubtful order of a lost reply, in Chromium against the production build: it names the
 * drift its fill explains (and the drift names it back), its age keeps counting when the list
 * stops updating, a check the venue gateway cannot answer says what to do next once and then
 * "failed again at", and a resolution by hand with a price a decimal place off the last mark is
 * refused with the mark and the ratio shown and every field kept, until the operator ticks that
 * the price is right; the price recorded is then in the answer and in the audit entry.
 */
import type http from "node:http";
import Database from "better-sqlite3";
import path from "node:path";
import { expect, test, type Locator } from "@playwright/test";
import type { ExchangeAdapter } from "@/lib/exchange/adapter";
import { serveVenueGateway } from "@/lib/exchange/venue-gateway";
import { tempDir } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { lostReplyJournal } from "../helpers/e2e/journals";
import { addAccountWithCli, signIn } from "../helpers/e2e/accounts";
import { noHorizontalScroll, noSeriousAxeViolations } from "../helpers/e2e/a11y";

const SECRET = "doubtful-orders-spec-session-secret-longer-than-32";
const TOKEN = "venue-gateway-token-for-doubtful-spec";
const ana = { name: "ana", password: "ana's long password here" };

/** The seconds in "3 min 12 s"; null for anything else. */
async function ageSeconds(cell: Locator): Promise<number | null> {
  const m = /^(?:(\d+) min )?(\d+) s$/.exec(((await cell.textContent()) ?? "").trim());
  return m ? Number(m[1] ?? 0) * 60 + Number(m[2]) : null;
}

test.describe.configure({ mode: "serial" });

test.describe("a doubtful order of a lost reply", () => {
  let server: ConsoleServer;
  let gateway: http.Server;
  let journal: Awaited<ReturnType<typeof lostReplyJournal>>;
  // The gateway's venue for beta: unreachable at first (its own lookups fail).
  const venues = new Map<string, Pick<ExchangeAdapter, "findOrder">>([
    [
      "beta",
      {
        findOrder: () => Promise.reject(new Error("venue timed out")),
      },
    ],
  ]);

  test.beforeAll(async () => {
    journal = await lostReplyJournal();
    const accountsDb = path.join(tempDir("e2e-acc"), "accounts.db");
    addAccountWithCli(accountsDb, { name: ana.name, role: "operator", password: ana.password });
    gateway = await serveVenueGateway({ adapters: venues, host: "127.0.0.1", port: 0, token: TOKEN });
    server = await startConsole({
      journal: journal.file,
      env: {
        DRIFTWATCH_ACCOUNTS_DB: accountsDb,
        DRIFTWATCH_SESSION_SECRET: SECRET,
        DRIFTWATCH_VENUE_URL: `http://127.0.0.1:${(gateway.address() as { port: number }).port}`,
        DRIFTWATCH_VENUE_TOKEN: TOKEN,
      },
    });
  });
  test.afterAll(async () => {
    await server?.stop();
    gateway?.close();
    journal?.close();
  });

  test("names the drift its fill would explain, and the drift names it back on the overview and the symbol page", async ({ page }) => {
    await page.goto(`${server.url}/doubtful`);
    const card = page.getByTestId("doubtful-order");
    const id = (await card.getAttribute("data-order"))!;
    await expect(card.getByTestId("may-explain")).toHaveText("May explain the drift on ETHUSDT: exchange +2, book 0.");
    // A visitor reads the order whole, with no operator's form to open and find greyed.
    await expect(card.getByTestId("order-event").first()).toBeAttached();
    await expect(page.getByRole("button", { name: "Check on exchange" })).toHaveCount(0);
    await expect(page.getByText("Resolve by hand")).toHaveCount(0);
    await expect(page.locator("main textarea, main form button")).toHaveCount(0);

    await page.goto(server.url);
    const row = page.locator('[data-testid="symbol-row"][data-symbol="ETHUSDT"]');
    await expect(row.getByTestId("drift-explained")).toHaveText(`Explained if the doubtful order ${id} filled (+2): settle it first`);
    expect((await row.getByTestId("drift-explained").getByRole("link", { name: "settle it first" }).boundingBox())!.height).toBeGreaterThanOrEqual(24);
    // Whether it is acknowledged is read-only information, kept; the form is not there to open.
    await expect(row.getByTestId("ack-cell")).toHaveText("no");
    await expect(row.getByText("Acknowledge", { exact: true })).toHaveCount(0);
    await expect(page.locator("main textarea")).toHaveCount(0);
    await expect(page.locator('[data-testid="symbol-row"][data-symbol="BTCUSDT"]').getByTestId("drift-explained")).toHaveCount(0);

    await page.goto(`${server.url}/doubtful`);
    await page.getByRole("main").getByTestId("may-explain").getByRole("link", { name: "ETHUSDT" }).click();
    // A server-rendered page with its chart: on a loaded machine more than the default 5 s.
    await expect(page).toHaveURL(/\/bots\/beta\/symbols\/ETHUSDT$/, { timeout: 20_000 });
    const book = page.getByTestId("book-line");
    await expect(book.getByTestId("drift-explained")).toContainText(`Explained if the doubtful order ${id} filled (+2)`);
    await book.getByRole("link", { name: "settle it first" }).click();
    await expect(page).toHaveURL(/\/doubtful\?bot=beta$/);
    await expect(page.getByTestId("doubtful-order")).toHaveCount(1);
  });

  test("the card, its drift link and its hand form fit a 390 px phone with no serious accessibility violations, light or dark", async ({ page }) => {
    await signIn(page, server.url, ana);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/doubtful`);
    const card = page.getByTestId("doubtful-order");
    await expect(card.getByTestId("may-explain")).toBeVisible();
    await card.getByText("Resolve by hand").click();
    await expect(card.getByLabel(/The price is right/)).toBeVisible();
    await noHorizontalScroll(page);
    await noSeriousAxeViolations(page);
    await page.emulateMedia({ colorScheme: "dark" });
    await noSeriousAxeViolations(page, { colorsOnly: true });
    await page.goto(server.url);
    const row = page.locator('[data-testid="symbol-row"][data-symbol="ETHUSDT"]');
    await expect(row.getByTestId("drift-explained")).toBeVisible();
    await noHorizontalScroll(page);
    // The explanation takes the card's width, not the label column's (12 characters a line)…
    const rowBox = (await row.boundingBox())!;
    const explained = (await row.getByTestId("drift-explained").boundingBox())!;
    expect(explained.width).toBeGreaterThan(rowBox.width * 0.8);
    // …and every label keeps clear of its value ("Acknowledged" ran into "no").
    const gaps = await row.evaluate((tr) =>
      [...tr.querySelectorAll<HTMLElement>("td[data-label]")].flatMap((td) => {
        const value = td.firstElementChild;
        if (!value) return [];
        const label = document.createElement("span");
        label.textContent = td.dataset.label ?? "";
        label.style.font = getComputedStyle(td, "::before").font;
        label.style.whiteSpace = "nowrap";
        document.body.append(label);
        const width = label.getBoundingClientRect().width;
        label.remove();
        const start = td.getBoundingClientRect().left + parseFloat(getComputedStyle(td).paddingLeft);
        return [{ label: td.dataset.label, gap: Math.round(value.getBoundingClientRect().left - start - width) }];
      }),
    );
    expect(gaps.length).toBeGreaterThan(3);
    for (const g of gaps) expect(g.gap, g.label).toBeGreaterThanOrEqual(12);
  });

  test("keeps counting the order's age when the list stops updating", async ({ page }) => {
    // Without the live stream (refused from the start), so the list polls and the poll is what fails.
    await page.route("**/api/live*", (route) => route.abort());
    await page.goto(`${server.url}/doubtful`);
    const age = page.getByTestId("doubtful-age");
    await expect.poll(() => ageSeconds(age)).not.toBeNull();
    await page.route("**/api/doubtful*", (route) => route.abort());
    await expect(page.getByRole("main").getByTestId("live-status")).toContainText("not updating", { timeout: 15_000 });
    const stoppedAt = (await ageSeconds(age))!;
    await expect.poll(() => ageSeconds(age), { timeout: 30_000 }).toBeGreaterThanOrEqual(stoppedAt + 5);
    await page.unroute("**/api/doubtful*");
    await page.unroute("**/api/live*");
  });

  test("folds a bot's repeated failed lookups into one line, and says the history was cut and what it counts", async ({ page }) => {
    // The bot kept asking the venue: 60 failed lookups, written as the shipped writers write them.
    const db = new Database(journal.file);
    const id = db.prepare(`SELECT client_order_id FROM orders WHERE bot_id = 'beta' AND state = 'unknown'`).pluck().get() as string;
    const start = Date.now() - 60 * 15_000;
    const add = db.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, 'error', 'bot', ?)`);
    db.transaction(() => {
      for (let i = 0; i < 60; i++) add.run(id, new Date(start + i * 15_000).toISOString(), '{"during":"lookup","error":"lookup failed: venue timed out"}');
    })();
    const total = db.prepare(`SELECT count(*) FROM order_events WHERE client_order_id = ?`).pluck().get(id) as number;
    db.close();

    await page.goto(`${server.url}/doubtful`);
    const card = page.locator(`[data-testid="doubtful-order"][data-order="${id}"]`);
    await expect(card.getByTestId("order-sends")).toHaveText(/^\d+, then at least \d+ lookups \(in the history\)$/);
    const history = card.getByTestId("order-history");
    await history.locator("summary").click();
    // Its first events (how it became doubtful) and its latest, folded, with the cut between them said.
    const shown = Math.min(total, 60);
    await expect(history.locator("summary")).toHaveText(new RegExp(`^History \\(${shown} of ${total} events: the first and the latest, in \\d+ lines\\)$`));
    await expect(card.getByTestId("order-history-cut")).toContainText(`${total - shown} event${total - shown === 1 ? "" : "s"} between these not listed here`);
    await expect(card.getByTestId("order-event").first()).toContainText("intent");
    await expect(card.getByTestId("order-event").last()).toContainText("error · bot ×50");
    // Its detail breaks between fields on a phone, never inside a time or a word.
    await expect(card.getByTestId("order-event").last().locator("code")).toHaveText('{ "during": "lookup", "error": "lookup failed: venue timed out" }');
    // The buttons stay within reach on a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await noHorizontalScroll(page);
  });

  test("a check the gateway cannot answer says what to do next once, then when it failed again", async ({ page }) => {
    await signIn(page, server.url, ana);
    await page.goto(`${server.url}/doubtful`);
    const card = page.getByTestId("doubtful-order");
    const check = card.getByRole("button", { name: "Check on exchange" });
    await check.click();
    const refused = card.getByTestId("action-refused");
    await expect(refused).toHaveText(
      "Check on exchange failed: the venue gateway says: lookup failed: venue timed out. " +
        "The order stays doubtful: try again, or resolve by hand with what the exchange's own page shows.",
    );
    await expect(card.getByTestId("failed-again")).toHaveCount(0);
    await check.click();
    await expect(card.getByTestId("failed-again")).toHaveText(/^Failed again at \d\d:\d\d:\d\d UTC\.$/);
    // The same sentence once, not stacked.
    await expect(card.getByText("the venue gateway says")).toHaveCount(1);
  });

  test("refuses an average price a decimal place off the last mark, keeping every field, until the price is ticked as right", async ({ page }) => {
    await signIn(page, server.url, ana);
    await page.goto(`${server.url}/doubtful`);
    const card = page.getByTestId("doubtful-order");
    const id = (await card.getAttribute("data-order"))!;
    await card.getByText("Resolve by hand").click();
    await card.getByLabel("Status on the exchange's own screen").selectOption("filled");
    await card.getByLabel("Filled quantity").fill("2");
    // A one-place slip of a fill a little under the mark (about 3,000): under ten times the mark, so
    // the old ten-times band let it through; beyond three times, so it is refused now.
    await card.getByLabel("Average price").fill("29000");
    await card.getByLabel(/Note \(required\)/).fill("venue screen: filled 2 ETH at 2900.0");
    await card.getByRole("button", { name: "Record resolution" }).click();
    const refused = card.getByTestId("action-refused");
    await expect(refused).toHaveAttribute("data-code", "refused");
    await expect(refused).toContainText(
      /^29000 is ×9\.\d the last mark of ETHUSDT \([\d,.]+\); beyond ×3 or ÷3 reads as a slipped decimal point: check the decimal point, or tick "The price is right" to record it anyway\./,
    );
    await expect(card.getByLabel("Status on the exchange's own screen")).toHaveValue("filled");
    await expect(card.getByLabel("Filled quantity")).toHaveValue("2");
    await expect(card.getByLabel("Average price")).toHaveValue("29000");
    await expect(card.getByLabel(/Note \(required\)/)).toHaveValue("venue screen: filled 2 ETH at 2900.0");
    await expect(card.getByLabel(/The price is right/)).not.toBeChecked();

    await card.getByLabel(/The price is right/).check();
    await card.getByRole("button", { name: "Record resolution" }).click();
    // The price recorded, once more where it can still be caught: the answer and the audit entry's "After".
    await expect(page.getByTestId("resolved-notice")).toContainText(`${id}: recorded as filled at 29000.`);
    expect(journal.bot.writer.order(id)).toMatchObject({ state: "filled", filledQty: 2, avgPrice: 29000 });
    await page.goto(`${server.url}/audit`);
    const entry = page.getByTestId("audit-entry").first();
    await expect(entry.getByTestId("audit-action-label")).toHaveText("Resolve a doubtful order by hand: applied");
    await entry.getByText("Detail").click();
    await expect(entry).toContainText("state filled, filled quantity 2, average price 29,000");
    // The refusal before it, coded "refused", says so once.
    const refusal = page.locator('[data-testid="audit-entry"][data-outcome="refused"]').first();
    await expect(refusal).toContainText("Resolve a doubtful order by hand: refused");
    await expect(refusal).not.toContainText("refused (refused)");
  });
});
