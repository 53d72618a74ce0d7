/** Round ticks for a value axis that always shows zero: flat is what a position is read against. */

/** Ticks at 1, 2 or 5 x 10^k over [min(0, lo), max(0, hi)], about `target` of them; first and last are the domain. */
export function valueTicks(lo: number, hi: number, target = 5): number[] {
  const from = Math.min(0, lo);
  const to = Math.max(0, hi);
  if (!Number.isFinite(from) || !Number.isFinite(to)) return [0, 1];
  if (to === from) return [-1, 0, 1];
  const rough = (to - from) / Math.max(1, target - 1);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * magnitude >= rough) ?? 10) * magnitude;
  const first = Math.floor(from / step + 1e-9) * step;
  const last = Math.ceil(to / step - 1e-9) * step;
  const ticks: number[] = [];
  // Rounded so that 0.1 + 0.2 prints as 0.3.
  for (let i = 0; first + i * step <= last + step / 2; i++) ticks.push(Number((first + i * step).toPrecision(12)));
  return ticks;
}
