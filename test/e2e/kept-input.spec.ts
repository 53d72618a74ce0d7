/**
 * No typed word lost: every operator form with fields the operator types is sent with one bad
 * field, refused, and still holds everything that was typed (the bad field included, to fix it),
 * in Chromium against the production build. On the way, the order is resolved by hand while the
 * bot's lookup fails between the page's look and the post: the version moved, the state did not,
 * and the resolution is accepted.
 */
import path from "node:path";
import { expect, test } from "@playwright/test";
import { tempDir } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { lostReplyJournal } from "../helpers/e2e/journals";
import { addAccountWithCli, signIn } from "../helpers/e2e/accounts";

const SECRET = "kept-input-spec-session-secret-longer-than-32";
const ana = { name: "ana", password: "ana's long password here" };
/** A right-to-left override: the guard refuses it in any note or reason (it would disguise the text). */
const RLO = "\u202e";

test.describe.configure({ mode: "serial" });

test.describe("refused forms keep what was typed", () => {
  let server: ConsoleServer;
  let journal: Awaited<ReturnType<typeof lostReplyJournal>>;

  test.beforeAll(async () => {
    journal = await lostReplyJournal();
    const accountsDb = path.join(tempDir("e2e-acc"), "accounts.db");
    addAccountWithCli(accountsDb, { name: ana.name, role: "operator", password: ana.password });
    server = await startConsole({ journal: journal.file, env: { DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_SESSION_SECRET: SECRET } });
  });
  test.afterAll(async () => {
    await server?.stop();
    journal?.close();
  });

  test("every form keeps its fields on a refusal, and a resolution survives the bot's failed lookup meanwhile", async ({ page }) => {
    const { writer, sim } = journal.bot;
    await signIn(page, server.url, ana);

    // 1. Resolve by hand: a bad average price; status, quantity and note stay.
    await page.goto(`${server.url}/doubtful`);
    const card = page.getByTestId("doubtful-order");
    const id = (await card.getAttribute("data-order"))!;
    await card.getByText("Resolve by hand").click();
    await card.getByLabel("Status on the exchange's own screen").selectOption("filled");
    await card.getByLabel("Filled quantity").fill("2");
    await card.getByLabel("Average price").fill("-3");
    await card.getByLabel(/Note \(required\)/).fill("venue screen: filled 2 ETH");
    await card.getByRole("button", { name: "Record resolution" }).click();
    await expect(card.getByTestId("action-refused")).toHaveAttribute("data-code", "invalid");
    await expect(card.getByText("Average price must be above 0")).toBeVisible();
    await expect(card.getByLabel("Status on the exchange's own screen")).toHaveValue("filled");
    await expect(card.getByLabel("Filled quantity")).toHaveValue("2");
    await expect(card.getByLabel("Average price")).toHaveValue("-3");
    await expect(card.getByLabel(/Note \(required\)/)).toHaveValue("venue screen: filled 2 ETH");

    // Fixed and sent again; while the post is on its way, the bot's next lookup fails (version up,
    // still unknown, nothing filled): the resolution is accepted all the same.
    const versionSeen = writer.order(id)!.version;
    await page.route(
      (url) => url.pathname === "/doubtful",
      async (route) => {
        if (route.request().method() !== "POST") return route.continue();
        sim.inject({ on: "find", fault: "lookup_fail", times: 1 });
        await writer.refresh(id);
        await route.continue();
      },
    );
    await card.getByLabel("Average price").fill("2450");
    await card.getByRole("button", { name: "Record resolution" }).click();
    await expect(page.getByTestId("resolved-notice")).toContainText("recorded as filled");
    await page.unroute((url) => url.pathname === "/doubtful");
    expect(writer.order(id)).toMatchObject({ state: "filled", filledQty: 2, version: versionSeen + 2 });

    // 2. Acknowledge the drift on the overview: a note carrying an invisible override is refused, and kept.
    await page.goto(server.url);
    const row = page.locator('[data-testid="symbol-row"][data-symbol="ETHUSDT"]');
    await row.getByText("Acknowledge", { exact: true }).click();
    await row.getByLabel("What you checked").fill(`the lost reply filled 2 ETH${RLO}`);
    await row.getByRole("button", { name: "Acknowledge ETHUSDT" }).click();
    await expect(row.getByTestId("action-refused")).toHaveAttribute("data-code", "invalid");
    await expect(row.getByLabel("What you checked")).toHaveValue(`the lost reply filled 2 ETH${RLO}`);

    // 3. The next cycle is clean; the drift that ended is acknowledged on the bot page.
    await journal.cycle();
    await page.goto(`${server.url}/bots/beta`);
    const ended = page.locator('[data-testid="unacknowledged-drift"][data-symbol="ETHUSDT"]');
    await ended.getByLabel("What you checked").fill(`filled by the lost reply${RLO}`);
    await ended.getByRole("button", { name: "Acknowledge ETHUSDT" }).click();
    await expect(ended.getByTestId("action-refused")).toHaveAttribute("data-code", "invalid");
    await expect(ended.getByLabel("What you checked")).toHaveValue(`filled by the lost reply${RLO}`);
    await ended.getByLabel("What you checked").fill("filled by the lost reply, settled by hand");
    await ended.getByRole("button", { name: "Acknowledge ETHUSDT" }).click();
    // Applied: the next poll moves it to the acknowledged list (its form and answer go with it).
    await expect(page.locator('main [data-testid="acknowledged-drift"][data-symbol="ETHUSDT"]')).toContainText("filled by the lost reply, settled by hand");
    await expect(page.getByTestId("checklist").locator('li[data-met="false"]')).toHaveCount(0);

    // 4. Clear halt: the bot id in the wrong case; the reason stays, and so does the typed id.
    const reason = page.getByLabel("Why it is safe to resume");
    const confirm = page.getByLabel(/Type the bot id to confirm/);
    await reason.fill("order settled by hand from the venue screen, drift acknowledged, clean cycle since");
    await confirm.fill("BETA");
    await page.getByRole("button", { name: "Clear halt" }).click();
    await expect(page.getByTestId("action-refused")).toHaveAttribute("data-code", "invalid");
    await expect(reason).toHaveValue("order settled by hand from the venue screen, drift acknowledged, clean cycle since");
    await expect(confirm).toHaveValue("BETA");
    await confirm.fill("beta");
    await page.getByRole("button", { name: "Clear halt" }).click();
    await expect(page.getByTestId("action-ok").filter({ hasText: "Cleared" })).toBeVisible();
  });
});
