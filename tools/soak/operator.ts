/**
 * The soak's operator: a person in a real browser (headless Chromium) acting through the console's
 * own pages and server actions, every few seconds, on what the bot's incidents leave:
 *
 *   1. a drift since the trip: acknowledge it on the overview (applied);
 *   2. a doubtful order: first a typo, "filled" with twice the order's quantity (refused by the
 *      server), then the right resolution (applied);
 *   3. a halt whose checklist is all met: clear it (applied).
 *
 * What to do next is read from the JSON routes a page polls; the action itself is the form on the
 * page, submitted by clicking, and its outcome is what the page then says. Only an outcome the page
 * showed counts as confirmed; an attempt that never showed one is counted as unconfirmed.
 */
import type { Browser, Locator, Page } from "playwright-core";
import type { ConfirmedAction } from "./verify";

export interface OperatorStats {
  confirmed: ConfirmedAction[];
  /** Attempts whose page showed no outcome in time: the audit log says whether they happened. */
  unconfirmed: { action: ConfirmedAction["action"]; target: string }[];
  /** Failures of the browser itself (navigation, a missing form), with samples. */
  errors: number;
  errorSamples: string[];
}

interface ClearView {
  bot: { breaker: { halted: boolean; version: number } | null };
  items: { key: string; met: boolean }[];
}
interface DoubtfulView {
  orders: { clientOrderId: string; botId: string; qty: number; version: number }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function json<T>(url: string): Promise<T | null> {
  try {
    const res = await fetch(url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(10_000) });
    const body = (await res.json()) as { ok: boolean; data?: T };
    return body.ok ? (body.data ?? null) : null;
  } catch {
    return null;
  }
}

export class BrowserOperator {
  readonly stats: OperatorStats = { confirmed: [], unconfirmed: [], errors: 0, errorSamples: [] };
  /** Orders the typo has been tried on: the next attempt on them is the right one. */
  private readonly typoTried = new Set<string>();

  private constructor(
    private readonly page: Page,
    private readonly baseUrl: string,
    private readonly botId: string,
    private readonly outcomeTimeoutMs: number,
  ) {}

  static async signIn(opts: {
    browser: Browser;
    baseUrl: string;
    botId: string;
    name: string;
    password: string;
    outcomeTimeoutMs?: number;
  }): Promise<BrowserOperator> {
    const page = await opts.browser.newPage();
    // Generous: on a starved machine a page can take many seconds, and a slow page is not a lost action.
    page.setDefaultTimeout(60_000);
    await page.goto(`${opts.baseUrl}/login`);
    await page.getByLabel("Account name").fill(opts.name);
    await page.getByLabel("Password").fill(opts.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("signed-in-as").waitFor();
    return new BrowserOperator(page, opts.baseUrl, opts.botId, opts.outcomeTimeoutMs ?? 20_000);
  }

  /** Acts every `everyMs` until `until()`; the action under way when it says stop is finished first. */
  async run(opts: { everyMs: number; until: () => boolean }): Promise<OperatorStats> {
    while (!opts.until()) {
      const started = Date.now();
      try {
        await this.step();
      } catch (error) {
        this.stats.errors++;
        if (this.stats.errorSamples.length < 5) this.stats.errorSamples.push((error as Error).message.split("\n")[0] ?? String(error));
      }
      await sleep(Math.max(250, opts.everyMs - (Date.now() - started)));
    }
    return this.stats;
  }

  /** One look at the bot and, if there is something to do, one action. */
  async step(): Promise<void> {
    const bot = encodeURIComponent(this.botId);
    const clear = await json<ClearView>(`${this.baseUrl}/api/bots/${bot}/clear`);
    if (!clear?.bot.breaker?.halted) return;
    const unmet = new Set(clear.items.filter((i) => !i.met).map((i) => i.key));
    if (unmet.has("drifts")) {
      const overview = await json<{ lines: { botId: string; symbol: string; drift: string }[] }>(`${this.baseUrl}/api/overview`);
      const line = overview?.lines.find((l) => l.botId === this.botId && l.drift !== "none");
      if (line) return this.acknowledge(line.symbol);
    }
    if (unmet.has("doubtful")) {
      const doubtful = await json<DoubtfulView>(`${this.baseUrl}/api/doubtful?bot=${bot}`);
      const order = doubtful?.orders.find((o) => o.botId === this.botId);
      if (order) return this.resolve(order);
    }
    if (unmet.size === 0) return this.clear();
  }

  private async outcome(scope: Locator, okSelector = '[data-testid="action-ok"]'): Promise<{ ok: true } | { ok: false; code: string } | null> {
    const answer = scope.locator(`${okSelector}, [data-testid="action-refused"]`).first();
    try {
      await answer.waitFor({ timeout: this.outcomeTimeoutMs });
    } catch {
      return null;
    }
    if ((await answer.getAttribute("data-testid")) === "action-refused") return { ok: false, code: (await answer.getAttribute("data-code")) ?? "unknown" };
    return { ok: true };
  }

  private record(action: ConfirmedAction["action"], target: string, result: Awaited<ReturnType<BrowserOperator["outcome"]>>): void {
    if (result === null) {
      this.stats.unconfirmed.push({ action, target });
      return;
    }
    this.stats.confirmed.push(result.ok ? { action, target, outcome: "applied" } : { action, target, outcome: "refused", code: result.code });
  }

  private async acknowledge(symbol: string): Promise<void> {
    await this.page.goto(this.baseUrl);
    const row = this.page.locator(`[data-testid="symbol-row"][data-bot="${this.botId}"][data-symbol="${symbol}"]`);
    await row.getByText(/^Acknowledge( again)?$/).click();
    await row.getByLabel("What you checked").fill("soak: the lost reply's fill, checked on the venue");
    await row.getByRole("button", { name: `Acknowledge ${symbol}` }).click();
    this.record("acknowledge_drift", `${this.botId}/${symbol}`, await this.outcome(row));
  }

  private async resolve(order: DoubtfulView["orders"][number]): Promise<void> {
    await this.page.goto(`${this.baseUrl}/doubtful`);
    const card = this.page.locator(`[data-testid="doubtful-order"][data-order="${order.clientOrderId}"]`);
    await card.getByText("Resolve by hand").click();
    const typo = !this.typoTried.has(order.clientOrderId);
    this.typoTried.add(order.clientOrderId);
    await card.getByLabel("Status on the exchange's own screen").selectOption("filled");
    await card.getByLabel("Filled quantity").fill(String(typo ? order.qty * 2 : order.qty));
    await card.getByLabel(/Note \(required\)/).fill("soak: the venue's order screen shows it filled");
    await card.getByRole("button", { name: "Record resolution" }).click();
    // Resolved, the card leaves on the next poll and the page keeps the notice; refused, the card says why.
    this.record("resolve_order_manual", order.clientOrderId, await this.outcome(this.page.locator("main"), '[data-testid="resolved-notice"]'));
  }

  private async clear(): Promise<void> {
    await this.page.goto(`${this.baseUrl}/bots/${encodeURIComponent(this.botId)}`);
    const button = this.page.getByRole("button", { name: "Clear halt" });
    await button.waitFor();
    await this.page.getByLabel("Why it is safe to resume").fill("soak: order settled, drift acknowledged, clean cycle since");
    await this.page.getByLabel(/Type the bot id to confirm/).fill(this.botId);
    if (!(await button.isEnabled())) return; // the checklist changed since we looked: look again next time
    await button.click();
    this.record("clear_halt", this.botId, await this.outcome(this.page.locator("main")));
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}
