/**
 * Numbers and words an on-call person can trust, in Chromium against the built console: a drift
 * whose exchange side is flat shows its notional in the symbol's quote currency, and at phone
 * width (390 px) no word of a long error, reason or audit note is split across two lines (ids may
 * break, in their own element), on the overview, a bot page, /doubtful and /audit, with no
 * sideways scroll.
 */
import { botOnJournal } from "../helpers/e2e/journals";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { appendAudit } from "@/lib/audit/log";
import { LookupFailedError, type ExchangeOrder } from "@/lib/exchange/adapter";
import { SimExchange } from "@/lib/exchange/simulator";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { noHorizontalScroll } from "../helpers/e2e/a11y";

const AUDIT_KEY = "phone-words-spec-audit-key-longer-than-32";
const SYMBOLS = [
  { symbol: "BTCUSDT", qtyStep: 0.001, price: 60_000 },
  { symbol: "ETHUSDT", qtyStep: 0.01, price: 3_000 },
];
const LONG_ERROR =
  "the venue answered 503 Service Unavailable while its matching engine restarted for scheduled maintenance, so nobody can tell whether the order exists; look it up again after maintenance (GET http://127.0.0.1:40877/v5/order/realtime?category=linear&orderLinkId=be1-lookup)";
const LONG_NOTE = "checked the venue's order history screen twice together with the trading desk, and the position reconciles with every fill listed there";

/** A venue whose order lookups fail with a long, wordy error while `failing` is set. */
class WordyVenue extends SimExchange {
  failing = false;
  override async findOrder(query: { symbol: string; clientOrderId: string }): Promise<ExchangeOrder | null> {
    if (this.failing) throw new LookupFailedError(LONG_ERROR);
    return super.findOrder(query);
  }
}

/**
 * Each word of prose in the element whose boxes sit on more than one line: a word split mid-word.
 * Text inside a monospace element is an id, allowed to break anywhere, and skipped. A break right
 * after a hyphen is the ordinary line break of a compound ("be1-" / "d0e4…"), not a split word.
 */
function wordsSplitAcrossLines(el: Locator): Promise<{ split: string[]; lines: number }> {
  return el.evaluate((root) => {
    const split: string[] = [];
    const tops = new Set<number>();
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement?.closest(".font-mono")) continue;
      for (const m of (n.textContent ?? "").matchAll(/[^\s-]+-?|-/g)) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const rows = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        rows.forEach((t) => tops.add(t));
        if (rows.size > 1) split.push(m[0]);
      }
    }
    return { split, lines: tops.size };
  });
}

/**
 * The parts of each id between its preferred breaks (components/ui/wrapping-text.tsx puts a <wbr>
 * after `/`, `?`, `&`, `=`, `_`) that sit on more than one line: a URL split as "…/realtim" + "e?…"
 * (a try-out). Only parts short enough to fit a line, without a hyphen (a break after one is ordinary).
 */
function idPartsSplit(el: Locator): Promise<{ split: string[]; parts: number }> {
  return el.evaluate((root) => {
    const split: string[] = [];
    let parts = 0;
    for (const id of root.querySelectorAll(".font-mono")) {
      if (id.querySelector("wbr") === null) continue;
      for (const n of id.childNodes) {
        const text = n.textContent ?? "";
        if (n.nodeType !== Node.TEXT_NODE || text.length > 16 || text.includes("-")) continue;
        parts++;
        const range = document.createRange();
        range.selectNodeContents(n);
        if (new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size > 1) split.push(text);
      }
    }
    return { split, parts };
  });
}

async function expectWholeWords(el: Locator) {
  await expect(el).toBeVisible();
  // Measure the laid-out text, not a layout made before the fonts were in.
  await el.page().evaluate(() => document.fonts.ready.then(() => undefined));
  const { split, lines } = await wordsSplitAcrossLines(el);
  expect(lines, "the text wraps at this width, so the check means something").toBeGreaterThan(1);
  expect(split).toEqual([]);
}

test.describe("numbers and words on a phone", () => {
  let server: ConsoleServer;
  let close: () => void;
  let ethMark: number;

  test.beforeAll(async () => {
    const sim = new WordyVenue({ seed: 11, symbols: SYMBOLS, startAt: new Date(Date.now() - 2 * 60_000) });
    const { file, db, writer } = botOnJournal({ sim, symbols: SYMBOLS, botId: "beta", prefix: "be1" });
    const symbols = SYMBOLS.map((s) => s.symbol);
    await writer.sendOnce({ strategy: "trend", symbol: "ETHUSDT", side: "buy", qty: 2, bar: sim.now().toISOString() });
    await writer.reconcile({ symbols });
    // A lost reply the venue cannot look up: a doubtful order whose error is a long sentence.
    sim.failing = true;
    sim.inject({ on: "create", fault: "timeout_after_accept" });
    await writer.sendOnce({ strategy: "trend", symbol: "BTCUSDT", side: "buy", qty: 0.5, bar: sim.now().toISOString() });
    // Someone closed the ETH position on the venue: the exchange side is flat.
    sim.setPositionBehindBot("ETHUSDT", 0);
    sim.advance(Math.max(0, Date.now() - 2_000 - sim.now().getTime()));
    await writer.reconcile({ symbols });
    writer.heartbeat();
    ethMark = sim.price("ETHUSDT");
    db.transaction(() => {
      const at = new Date().toISOString();
      appendAudit(
        db,
        {
          at,
          actor: "operator:ana",
          action: "acknowledge_drift",
          target: "beta/ETHUSDT",
          outcome: "applied",
          detail: { drift: "size_drift", note: LONG_NOTE },
        },
        AUDIT_KEY,
      );
      appendAudit(
        db,
        {
          at,
          actor: "operator:ana",
          action: "correct_book",
          target: "beta/ETHUSDT",
          outcome: "refused",
          code: "conflict",
          detail: { message: "changed since you looked", kind: "adopt_exchange", delta: -2 },
        },
        AUDIT_KEY,
      );
    }).immediate();
    close = () => db.close();
    server = await startConsole({ journal: file, env: { DRIFTWATCH_AUDIT_KEY: AUDIT_KEY } });
  });
  test.afterAll(async () => {
    await server?.stop();
    close?.();
  });

  test.beforeEach(async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
  });

  const row = (page: Page, symbol: string) => page.locator(`main [data-testid="symbol-row"][data-symbol="${symbol}"]`);

  test("values a drift whose exchange side is flat at its mark, in the symbol's quote currency", async ({ page }) => {
    await page.goto(server.url);
    const eth = row(page, "ETHUSDT");
    await expect(eth).toHaveAttribute("data-drift", "size_drift");
    const expected = `${Math.round(2 * ethMark).toLocaleString("en-US")} USDT`;
    await expect(eth.getByTestId("notional")).toHaveText(expected);
    await page.goto(`${server.url}/bots/beta/symbols/ETHUSDT`);
    await expect(page.getByTestId("book-notional")).toHaveText(expected);
  });

  test("the overview and the bot page split no word of the halt's long reason, and do not scroll sideways", async ({ page }) => {
    for (const path of ["/", "/bots/beta"]) {
      await page.goto(server.url + path);
      const reason = page.locator("main").getByTestId("halt-reason").first();
      // The overview's card cuts it near 200 characters (whole on the bot's page).
      await expect(reason).toContainText(path === "/" ? "matching engine restarted" : "scheduled maintenance");
      await expectWholeWords(reason);
      await noHorizontalScroll(page);
    }
    // The whole reason, on the bot's page: its URL breaks after a slash, never inside "realtime".
    const { split, parts } = await idPartsSplit(page.locator("main").getByTestId("halt-reason").first());
    expect(parts, "the reason holds the URL's parts").toBeGreaterThan(5);
    expect(split).toEqual([]);
  });

  test("/doubtful splits no word of the order's long error", async ({ page }) => {
    await page.goto(`${server.url}/doubtful`);
    const card = page.getByTestId("doubtful-order").first();
    const error = card.locator("dd").filter({ hasText: "scheduled maintenance" });
    await expectWholeWords(error);
    // The banner above tells the same halt: its ids in their own elements, its words whole.
    await expectWholeWords(page.getByTestId("halt-banner"));
    await noHorizontalScroll(page);
  });

  test("/audit shows each detail as labelled words, the actions by name, and splits no word of a long note", async ({ page }) => {
    await page.goto(`${server.url}/audit`);
    const entries = page.getByTestId("audit-entry");
    await expect(entries).toHaveCount(2);
    await expect(entries.nth(0).getByTestId("audit-action-label")).toHaveText("Correct a bot's book: refused (conflict)");
    await expect(entries.nth(1).getByTestId("audit-action-label")).toHaveText("Acknowledge a drift: applied");
    for (const d of await page.locator("main details").all()) await d.locator("summary").click();
    const correction = entries.nth(0).getByTestId("audit-detail");
    await expect(correction.locator("dt")).toHaveText(["Refused because", "Kind", "Delta added to the book"]);
    await expect(correction.locator("dd")).toHaveText(["changed since you looked", "adopt the exchange's position", "-2"]);
    const note = entries.nth(1).getByTestId("audit-detail").locator("dd").filter({ hasText: "trading desk" });
    await expectWholeWords(note);
    await noHorizontalScroll(page);
  });
});
