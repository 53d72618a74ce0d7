/**
 * The page checks the browser tests share: axe's serious and critical violations, and no sideways
 * scroll. In a second color scheme only colors change, so `colorsOnly` runs axe's color-contrast
 * rule alone: the structural rules would report the same as in the first scheme, at twice the cost.
 */
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

export async function noSeriousAxeViolations(page: Page, opts: { colorsOnly?: boolean } = {}) {
  const builder = new AxeBuilder({ page });
  if (opts.colorsOnly) builder.withRules(["color-contrast"]);
  const { violations } = await builder.analyze();
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);
}

export async function noHorizontalScroll(page: Page) {
  const [scroll, client] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
  expect(scroll).toBeLessThanOrEqual(client);
}
