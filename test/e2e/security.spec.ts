/**
 * Server actions are public POST endpoints. A request from another origin, or from an opaque one
 * (`Origin: null`, as a sandboxed frame or a data: URL sends), must be turned away before the
 * action runs: nothing changes and nothing is even audited. The same request from the console's
 * own origin goes through, which shows the replay itself is sound.
 */
import path from "node:path";
import Database from "better-sqlite3";
import { expect, test, type Page, type Request } from "@playwright/test";
import { tempDir } from "../helpers/journal";
import { captureResolvePost as captureResolvePostAt } from "../helpers/e2e/capture-post";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { lostReplyJournal } from "../helpers/e2e/journals";
import { addAccountWithCli } from "../helpers/e2e/accounts";

const SECRET = "security-spec-session-secret-longer-than-32";
const OPERATOR = { name: "ana", password: "ana's long password here" };

test.describe("cross-origin posts to server actions", () => {
  let server: ConsoleServer;
  let journal: Awaited<ReturnType<typeof lostReplyJournal>>;

  test.beforeAll(async () => {
    journal = await lostReplyJournal();
    const accountsDb = path.join(tempDir("e2e-sec"), "accounts.db");
    addAccountWithCli(accountsDb, { name: OPERATOR.name, role: "operator", password: OPERATOR.password });
    server = await startConsole({ journal: journal.file, env: { DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_SESSION_SECRET: SECRET } });
  });
  test.afterAll(async () => {
    await server?.stop();
    journal?.close();
  });

  const auditCount = () => {
    const db = new Database(journal.file, { readonly: true });
    const n = db.prepare(`SELECT count(*) FROM audit_log`).pluck().get() as number;
    db.close();
    return n;
  };

  /** Fills the "resolve by hand" form and catches the action's POST without letting it through. */
  async function captureResolvePost(page: Page): Promise<Request> {
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Account name").fill(OPERATOR.name);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toBeVisible();
    return captureResolvePostAt(page, server.url, "seen filled on the venue's screen");
  }

  test("a foreign Origin and Origin: null are refused before the action runs; the same origin goes through", async ({ page }) => {
    const post = await captureResolvePost(page);
    const headers = await post.allHeaders();
    expect(headers["next-action"]).toBeTruthy();
    const body = post.postDataBuffer()!;
    const replay = (origin: string) =>
      page.request.post(post.url(), {
        headers: { ...headers, origin, host: new URL(server.url).host },
        data: body,
        failOnStatusCode: false,
      });
    const before = auditCount();
    const stateOf = () => journal.bot.writer.unsettledOrders().map((o) => [o.clientOrderId, o.state, o.version]);
    const orderBefore = stateOf();

    for (const origin of ["https://evil.example", "null"]) {
      const res = await replay(origin);
      expect(res.ok(), `Origin ${origin} answered ${res.status()}`).toBe(false);
      expect(auditCount()).toBe(before);
      expect(stateOf()).toEqual(orderBefore);
    }

    const same = await replay(server.url);
    expect(same.ok()).toBe(true);
    expect(auditCount()).toBe(before + 1);
    expect(journal.bot.writer.unsettledOrders().filter((o) => o.state === "unknown")).toHaveLength(0);
  });

  test("pages carry a CSP that forbids framing, and nosniff", async ({ request }) => {
    const res = await request.get(server.url);
    expect(res.headers()["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
    expect(res.headers()["x-content-type-options"]).toBe("nosniff");
    // The JSON routes skip the proxy; they get a fixed policy that allows nothing at all.
    const api = await request.get(`${server.url}/api/overview`);
    expect(api.headers()["content-security-policy"]).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(api.headers()["x-content-type-options"]).toBe("nosniff");
  });
});
