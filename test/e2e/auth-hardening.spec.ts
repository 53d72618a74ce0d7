/**
 * Who a request is, against `next start` with SSO configured (issue 18): the identity header counts
 * only when the proxy proves itself with X-Driftwatch-Proxy-Secret, and the role always comes from
 * driftwatch's own accounts, never from a header. And sign-in: a stranger's wrong passwords slow
 * strangers down but never keep the operator out of a browser they signed in on before.
 */
import path from "node:path";
import { expect, test, type APIRequestContext, type Request } from "@playwright/test";
import { createAccount } from "@/lib/auth/accounts";
import { openAccountsDb } from "@/lib/db/accounts-file";
import { repoRoot, tempDir } from "../helpers/journal";
import { captureResolvePost } from "../helpers/e2e/capture-post";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";
import { lostReplyJournal } from "../helpers/e2e/journals";

const SECRET = "auth-hardening-session-secret-k2P9xQ7mB4vN8wR1";
const PROXY_SECRET = "proxy-proof-Jx0c8vQ2mK5pYr7TnW1zL4bH9dF3gS6a";
const OPERATOR = { name: "ana", password: "ana's long password here" };
/** Another operator, for the sign-in test, so a stranger's failures on her never touch ana's. */
const OLGA = { name: "olga", password: "olga's long password here" };

test.describe("SSO headers and sign-in against a production build", () => {
  test.describe.configure({ mode: "serial", timeout: 120_000 });
  let server: ConsoleServer;
  let journal: Awaited<ReturnType<typeof lostReplyJournal>>;

  test.beforeAll(async () => {
    journal = await lostReplyJournal();
    const accountsDb = path.join(tempDir("e2e-auth"), "accounts.db");
    const accounts = openAccountsDb(accountsDb, { migrationsDir: path.join(repoRoot, "drizzle/accounts") });
    await createAccount(accounts.db, { name: OPERATOR.name, role: "operator", password: OPERATOR.password });
    await createAccount(accounts.db, { name: OLGA.name, role: "operator", password: OLGA.password });
    accounts.sqlite.close();
    server = await startConsole({
      journal: journal.file,
      env: {
        DRIFTWATCH_ACCOUNTS_DB: accountsDb,
        DRIFTWATCH_SESSION_SECRET: SECRET,
        DRIFTWATCH_TRUSTED_IDENTITY_HEADER: "x-forwarded-user",
        DRIFTWATCH_TRUSTED_PROXY_SECRET: PROXY_SECRET,
      },
    });
  });
  test.afterAll(async () => {
    await server?.stop();
    journal?.close();
  });

  const unknownOrders = () => journal.bot.writer.unsettledOrders().filter((o) => o.state === "unknown").length;

  /** Who the sign-in page says this request is: "name (role)", or null for nobody. */
  async function whoAmI(request: APIRequestContext, headers: Record<string, string>): Promise<string | null> {
    // React separates adjacent text with <!-- -->; drop those to read the sentence.
    const html = (await (await request.get(`${server.url}/login`, { headers })).text()).replaceAll("<!-- -->", "");
    const m = /You are signed in as <span[^>]*>([^<]+)<\/span> \(([a-z]+)\)/.exec(html);
    return m ? `${m[1]} (${m[2]})` : null;
  }

  /** Replays a captured action POST without the browser's cookie, with the given extra headers. */
  async function replay(request: APIRequestContext, post: Request, extra: Record<string, string>) {
    const { cookie: _cookie, ...headers } = await post.allHeaders();
    return request.post(post.url(), {
      headers: { ...headers, origin: server.url, host: new URL(server.url).host, ...extra },
      data: post.postDataBuffer()!,
      failOnStatusCode: false,
    });
  }

  test("a forged X-Forwarded-User is nobody without the proxy secret; with it, roles come from accounts only", async ({ page, request }) => {
    const forged = { "x-forwarded-user": "mallory", "x-forwarded-role": "operator" };
    expect(await whoAmI(request, forged)).toBeNull();
    expect(await whoAmI(request, { ...forged, "x-driftwatch-proxy-secret": "a guess at the proxy secret" })).toBeNull();
    expect(await whoAmI(request, { ...forged, "x-driftwatch-proxy-secret": PROXY_SECRET })).toBe("mallory (viewer)");
    expect(await whoAmI(request, { "x-forwarded-user": OPERATOR.name, "x-driftwatch-proxy-secret": PROXY_SECRET })).toBe("ana (operator)");

    // An operator's action, captured in a signed-in browser and replayed with no cookie at all.
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Account name").fill(OPERATOR.name);
    await page.getByLabel("Password").fill(OPERATOR.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("signed-in-as")).toBeVisible();
    const post = await captureResolvePost(page, server.url, "seen filled on the venue's screen");
    const before = unknownOrders();
    expect(before).toBeGreaterThan(0);

    // Mallory naming herself an operator, without the secret and with a wrong one: nothing happens.
    await replay(request, post, forged);
    await replay(request, post, { ...forged, "x-driftwatch-proxy-secret": PROXY_SECRET.slice(0, -1) });
    expect(unknownOrders()).toBe(before);
    // Mallory through the real proxy: a viewer (she has no account), whatever the role header says.
    await replay(request, post, { ...forged, "x-driftwatch-proxy-secret": PROXY_SECRET });
    expect(unknownOrders()).toBe(before);
    // The operator's account, named by the proxy that proves itself: the action goes through.
    const res = await replay(request, post, { "x-forwarded-user": OPERATOR.name, "x-driftwatch-proxy-secret": PROXY_SECRET });
    expect(res.ok()).toBe(true);
    await expect.poll(unknownOrders).toBe(before - 1);
  });

  test("a stranger's wrong passwords make strangers wait, in seconds, but the operator's own browser signs in at once", async ({ browser }) => {
    const owner = await browser.newContext();
    const stranger = await browser.newContext();
    try {
      // The operator signed in on this browser before, and signed out: it keeps its device cookie.
      const mine = await owner.newPage();
      await mine.goto(`${server.url}/login`);
      await mine.getByLabel("Account name").fill(OLGA.name);
      await mine.getByLabel("Password").fill(OLGA.password);
      await mine.getByRole("button", { name: "Sign in" }).click();
      await expect(mine.getByTestId("signed-in-as")).toContainText("olga");
      await mine.getByRole("button", { name: "Sign out" }).click();
      await expect(mine.getByLabel("Account name")).toBeVisible();

      // A stranger guesses until the console makes them wait.
      const theirs = await stranger.newPage();
      await theirs.goto(`${server.url}/login`);
      const alert = theirs.locator("#login-error");
      let waited = false;
      for (let i = 0; i < 20 && !waited; i++) {
        await theirs.getByLabel("Account name").fill(OLGA.name);
        await theirs.getByLabel("Password").fill(`wrong guess number ${i}`);
        await Promise.all([theirs.waitForResponse((r) => r.request().method() === "POST"), theirs.getByRole("button", { name: "Sign in" }).click()]);
        // React resets the form once the action's answer is rendered: wait for that, or the next
        // guess is typed into a field the reset then empties (and is refused as "Enter your password").
        await expect(theirs.getByLabel("Password")).toHaveValue("", { timeout: 20_000 });
        await expect(alert).toHaveText(/Wrong account name or password|Too many failed attempts/);
        waited = /Too many failed attempts/.test((await alert.textContent()) ?? "");
      }
      expect(waited).toBe(true);
      await expect(alert).toHaveText(
        /^Too many failed attempts: wait \d+ s, then sign in again\. A browser that signed in to this account before is not made to wait\.$/,
      );
      // The wait counts down under the button, which stays disabled until it is over.
      const waitSeconds = Number(/wait (\d+) s/.exec((await alert.textContent()) ?? "")![1]);
      await expect(theirs.getByTestId("login-wait")).toHaveText(/^try again in \d+ s$/);
      const shown = Number(/(\d+) s$/.exec((await theirs.getByTestId("login-wait").textContent()) ?? "")![1]);
      expect(shown).toBeLessThanOrEqual(waitSeconds);
      await expect(theirs.getByRole("button", { name: "Sign in" })).toBeDisabled();
      await expect(theirs.getByTestId("login-wait")).toHaveCount(0, { timeout: (waitSeconds + 5) * 1000 });
      await expect(theirs.getByRole("button", { name: "Sign in" })).toBeEnabled();

      // The operator, from the browser she signed in on before, is in straight away.
      await mine.getByLabel("Account name").fill(OLGA.name);
      await mine.getByLabel("Password").fill(OLGA.password);
      await mine.getByRole("button", { name: "Sign in" }).click();
      await expect(mine.getByTestId("signed-in-as")).toContainText("olga");
      const cookies = await owner.cookies(server.url);
      expect(cookies.find((c) => c.name === "driftwatch_device")).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    } finally {
      await owner.close();
      await stranger.close();
    }
  });
});
