/** Formatting shared by server and client components. No locale surprises: UTC, fixed units. */

export function formatAge(ms: number | null): string {
  if (ms === null || Number.isNaN(ms)) return "unknown";
  if (ms < 0) return `${formatAge(-ms)} in the future`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

/**
 * How long ago: "5 s ago", or "5 s in the future" when the time is ahead of the reader's clock
 * (a bot whose clock runs ahead), never "in the future ago".
 */
export function formatAgo(ms: number | null): string {
  if (ms === null || Number.isNaN(ms)) return "at an unknown time";
  return ms < 0 ? formatAge(ms) : `${formatAge(ms)} ago`;
}

/**
 * How long something has lasted: "3 min 30 s", or, when its start is ahead of the reader's clock,
 * a plain statement that it cannot be told, instead of a duration that counts down.
 */
export function formatDuration(ms: number | null): string {
  if (ms === null || Number.isNaN(ms)) return "unknown";
  return ms < 0 ? `unknown (it starts ${formatAge(-ms)} in the future: a clock ahead?)` : formatAge(ms);
}

/**
 * A day and minute that must read the same whenever it is read, such as when a journal was pruned:
 * `2 Dec 2026 at 02:35 UTC`, the date always said (formatUtc drops it on today's times).
 */
export function formatUtcDate(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} at ${d.toISOString().slice(11, 16)} UTC`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A UTC day as formatUtc says its date, without the year: `Dec 3`, for a chart's axis. A numeric
 * `12-03` reads as the 12th of March to half the world. The raw text when it does not parse.
 */
export function formatUtcDay(at: number | string): string {
  const t = typeof at === "number" ? at : Date.parse(at);
  if (Number.isNaN(t)) return String(at);
  const d = new Date(t);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

/** Whether two times fall on the same UTC day (false when either does not parse). */
export function sameUtcDay(a: string, b: string): boolean {
  const x = Date.parse(a);
  const y = Date.parse(b);
  return !Number.isNaN(x) && !Number.isNaN(y) && new Date(x).toISOString().slice(0, 10) === new Date(y).toISOString().slice(0, 10);
}

/**
 * The console's one way to show a time, always UTC (what the journal and the team speak):
 * `05:31:02 UTC` on the reader's UTC day, `Nov 30 05:31:02 UTC` on another day of the year,
 * `Nov 30 2025 05:31:02 UTC` in another year. Without `now` the day is always said (text that
 * outlives the moment, such as a checklist line). The raw text when it does not parse. Screens
 * put the full ISO in a `<time dateTime>` and a title (components/ui/utc-time.tsx). `sayDate`: the
 * date even on the reader's day (the end of a range that starts on another day); the year as `now` has it.
 */
export function formatUtc(iso: string, now?: number | Date, sayDate = false): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  const clock = d.toISOString().slice(11, 19);
  const ref = now === undefined ? null : new Date(now);
  if (!sayDate && ref && !Number.isNaN(ref.getTime()) && ref.toISOString().slice(0, 10) === d.toISOString().slice(0, 10)) return `${clock} UTC`;
  const year = ref && !Number.isNaN(ref.getTime()) && ref.getUTCFullYear() === d.getUTCFullYear() ? "" : ` ${d.getUTCFullYear()}`;
  return `${formatUtcDay(t)}${year} ${clock} UTC`;
}

// One formatter for every quantity and price: toLocaleString with options builds a new one per
// call, which made the 6,500 events of a busy hour take 180 ms to word (docs/performance.md).
const numberFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 8 });

/**
 * A quantity or a price as the console words it: `1,234.5`, `0.497`, `-3`, at most 8 decimals
 * (Intl's en-US with maximumFractionDigits 8). Most numbers take a fast path that gives the same
 * text: below 10 million, a number whose shortest form (String) has no exponent and at most 8
 * decimals is within half an ulp (under 1e-9) of that decimal, so rounding its exact value to 8
 * decimals, as Intl does, gives those very digits; only the thousands are grouped. Intl took half
 * a microsecond a call, a third of the words of a busy hour's fills (docs/performance.md); the
 * unit test checks the two agree on random and awkward numbers.
 */
export function formatNumber(n: number): string {
  if (n > -1e7 && n < 1e7 && !Object.is(n, -0)) {
    const s = String(n);
    const dot = s.indexOf(".");
    if (!s.includes("e") && (dot === -1 || s.length - dot - 1 <= 8)) {
      const neg = s.charCodeAt(0) === 45;
      const int = s.slice(neg ? 1 : 0, dot === -1 ? s.length : dot);
      if (int.length <= 3) return s;
      let grouped = "";
      for (let i = int.length; i > 0; i -= 3) grouped = (i > 3 ? "," : "") + int.slice(Math.max(0, i - 3), i) + grouped;
      return (neg ? "-" : "") + grouped + (dot === -1 ? "" : s.slice(dot));
    }
  }
  return numberFormat.format(n);
}

/** A quantity with its sign: "+0.5", "-3", "0". */
export const signedQty = (n: number) => (n > 0 ? `+${formatNumber(n)}` : formatNumber(n));

/** A drift's size and how many quantity steps that is: "+59 (+59 steps)", "-0.001 (-1 step)". */
export function driftSize(difference: number, steps: number): string {
  const rounded = Math.round(steps * 100) / 100;
  return `${signedQty(difference)} (${signedQty(rounded)} ${Math.abs(rounded) === 1 ? "step" : "steps"})`;
}
