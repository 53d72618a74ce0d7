import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { repoRoot, sqliteCliJournal, tempDir } from "../helpers/journal";
import { startConsole, type ConsoleServer } from "@/tools/lib/console-server";

const NAME = "e2e-operator";
const PASSWORD = "a long e2e password";
const SECRET = "e2e-session-secret-that-is-longer-than-32-characters";

/** Every Content-Security-Policy complaint the page makes, and every uncaught error. */
function watchForViolations(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to (execute|load|apply)/i.test(m.text())) problems.push(m.text());
  });
  page.on("pageerror", (e) => problems.push(e.message));
  return problems;
}

test.describe("signing in and out", () => {
  let server: ConsoleServer;

  test.beforeAll(async () => {
    const accountsDb = path.join(tempDir("e2e-accounts"), "accounts.db");
    // The account is made the way an operator makes one: with the command, password on stdin.
    const add = spawnSync(path.join(repoRoot, "node_modules/.bin/tsx"), ["scripts/accounts.ts", "add", NAME, "--role", "operator", "--password-stdin"], {
      cwd: repoRoot,
      input: `${PASSWORD}\n`,
      encoding: "utf8",
      env: { ...process.env, DRIFTWATCH_ACCOUNTS_DB: accountsDb },
    });
    expect(add.status, add.stderr).toBe(0);
    server = await startConsole({
      journal: sqliteCliJournal("e2e-login"),
      env: { DRIFTWATCH_ACCOUNTS_DB: accountsDb, DRIFTWATCH_SESSION_SECRET: SECRET },
    });
  });
  test.afterAll(async () => server?.stop());

  test("an operator signs in through the form, sees their name in the header, and signs out", async ({ page, context }) => {
    const problems = watchForViolations(page);
    await page.goto(`${server.url}/login?next=/doubtful`);
    await page.getByLabel("Account name").fill(NAME);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();

    await expect(page).toHaveURL(`${server.url}/doubtful`);
    const header = page.getByRole("banner");
    await expect(header.getByTestId("signed-in-as")).toHaveText(`Signed in as ${NAME} (operator)`);

    const [cookie] = (await context.cookies()).filter((c) => c.name === "driftwatch_session");
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/", secure: false });
    expect(cookie!.value).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(cookie!.value).not.toContain(PASSWORD);

    await header.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(`${server.url}/login`);
    await expect(header.getByRole("link", { name: "Sign in" })).toBeVisible();
    await expect(header.getByTestId("signed-in-as")).toHaveCount(0);
    expect((await context.cookies()).filter((c) => c.name === "driftwatch_session")).toEqual([]);
    expect(problems).toEqual([]);
  });

  test("a wrong password and an unknown name get the same generic error, tied to the password field", async ({ page, context }) => {
    await page.goto(`${server.url}/login`);
    const password = page.getByLabel("Password");
    for (const name of [NAME, "nobody-here"]) {
      await page.getByLabel("Account name").fill(name);
      await password.fill("not the right password");
      await page.getByRole("button", { name: "Sign in" }).click();
      await expect(page.getByRole("main").getByRole("alert")).toHaveText("Wrong account name or password.");
      await expect(password).toHaveAttribute("aria-invalid", "true");
      await expect(password).toHaveAccessibleDescription("Wrong account name or password.");
      await expect(page.getByLabel("Account name")).toHaveValue(name);
      await expect(password).toHaveValue("");
    }
    expect((await context.cookies()).filter((c) => c.name === "driftwatch_session")).toEqual([]);
  });

  test("an empty form gets field errors, each tied to its field", async ({ page }) => {
    await page.goto(`${server.url}/login`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByLabel("Account name")).toHaveAccessibleDescription("Enter your account name.");
    await expect(page.getByLabel("Password")).toHaveAccessibleDescription("Enter your password.");
    await expect(page.getByLabel("Account name")).toHaveAttribute("aria-invalid", "true");
  });

  test("a next= pointing at another site lands on the overview instead", async ({ page }) => {
    await page.goto(`${server.url}/login?next=${encodeURIComponent("//evil.example/phish")}`);
    await page.getByLabel("Account name").fill(NAME);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(`${server.url}/`);
    await expect(page.getByTestId("signed-in-as")).toContainText(NAME);
  });

  test("pages carry a CSP with a per-request nonce and frame-ancestors 'none', and break none of it", async ({ page }) => {
    const problems = watchForViolations(page);
    const seen = new Set<string>();
    for (const route of ["/", "/login"]) {
      const response = await page.goto(`${server.url}${route}`);
      const headers = response!.headers();
      const csp = headers["content-security-policy"] ?? "";
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      expect(headers["x-frame-options"]).toBe("DENY");
      expect(headers["x-content-type-options"]).toBe("nosniff");
      expect(headers["referrer-policy"]).toBe("same-origin");
      expect(headers["permissions-policy"]).toContain("camera=()");
      seen.add(csp.match(/'nonce-([^']+)'/)![1]!);
      // Hydrated: React's scripts ran under the policy and took over the server's HTML.
      await expect.poll(() => page.evaluate(() => Object.keys(document.body).some((k) => k.startsWith("__reactFiber")))).toBe(true);
    }
    expect(seen.size).toBe(2);
    await page.goto(`${server.url}/login`);
    await page.getByLabel("Account name").fill("x");
    await page.getByLabel("Password").fill("y");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("main").getByRole("alert")).toBeVisible();
    expect(problems).toEqual([]);
  });

  test("no auth code or secret reaches the browser's bundles", async () => {
    const dir = path.join(repoRoot, ".next/static");
    const needles = [SECRET, "driftwatch decoy password", "session-secret", "timingSafeEqual", "password_hash"];
    const hits: string[] = [];
    const walk = (d: string) => {
      for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, entry.name);
        if (entry.isDirectory()) walk(p);
        else if (/\.(js|css|json|txt|html)$/.test(entry.name)) {
          const text = fs.readFileSync(p, "utf8");
          for (const n of needles) if (text.includes(n)) hits.push(`${path.relative(repoRoot, p)}: ${n}`);
        }
      }
    };
    walk(dir);
    expect(hits).toEqual([]);
  });
});
