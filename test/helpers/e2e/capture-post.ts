/**
 * Fills "Resolve by hand" on the doubtful page (already signed in) and catches the server action's
 * POST without letting it through, so a test can replay it with changed headers or body.
 */
import { expect, type Page, type Request } from "@playwright/test";

export async function captureResolvePost(page: Page, url: string, note: string): Promise<Request> {
  await page.goto(`${url}/doubtful`);
  await page.getByText("Resolve by hand").first().click();
  await page.getByLabel("Status on the exchange's own screen").selectOption("filled");
  await page.getByLabel(/Note \(required\)/).fill(note);
  let captured: Request | undefined;
  await page.route("**/doubtful", async (route) => {
    if (route.request().method() === "POST") {
      captured = route.request();
      await route.abort();
    } else await route.continue();
  });
  await page.getByRole("button", { name: "Record resolution" }).click();
  await expect.poll(() => captured !== undefined).toBe(true);
  await page.unroute("**/doubtful");
  return captured!;
}
