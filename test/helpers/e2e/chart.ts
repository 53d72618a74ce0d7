import { expect, type Locator } from "@playwright/test";

/**
 * The chart's marker labels ("trip", "clear", "correction"…) print apart: no two boxes intersect
 * (a correction and a clear a minute apart printed "correctionclear"). Returns how many there are.
 */
export async function markerLabelsApart(chart: Locator): Promise<number> {
  const boxes = (await chart
    .locator("text")
    .filter({ hasText: /^(trip|clear|ack|correction)$/ })
    .evaluateAll((els) =>
      els.map((el) => {
        const r = el.getBoundingClientRect();
        return { text: el.textContent ?? "", left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      }),
    )) as { text: string; left: number; right: number; top: number; bottom: number }[];
  for (const [i, a] of boxes.entries()) {
    for (const b of boxes.slice(i + 1)) {
      const overlap = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      expect(overlap, `"${a.text}" at ${Math.round(a.left)}–${Math.round(a.right)} px and "${b.text}" at ${Math.round(b.left)}–${Math.round(b.right)} px`).toBe(
        false,
      );
    }
  }
  return boxes.length;
}
