import Form from "next/form";
import Link from "next/link";
import { RANGE_LABELS, rangeToQuery, toUtcInputValue, type ChartWindow, type SymbolRange } from "@/lib/url-state/symbol";

const quick = ["15m", "1h", "day"] as const;

function TimeField({ name, label, value }: { name: string; label: string; value: string }) {
  return (
    <label className="flex flex-col">
      <span>{label}</span>
      <input
        type="text"
        name={name}
        required
        defaultValue={value}
        placeholder="2026-08-10 15:30:00"
        aria-describedby="time-format"
        autoComplete="off"
        spellCheck={false}
        className="w-[27ch] max-w-full rounded border border-slate-400 bg-white px-2 py-1 font-mono dark:bg-slate-900"
      />
    </label>
  );
}

/**
 * The chart's range, as links and a GET form: the range lives in the URL, so it works without
 * JavaScript, is shareable, and the back button undoes it.
 */
export function RangePicker({ path, range, window }: { path: string; range: SymbolRange | null; window: ChartWindow | null }) {
  const pill = (active: boolean) =>
    `rounded px-3 py-1.5 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 ${
      active
        ? "bg-slate-800 text-white dark:bg-slate-100 dark:text-slate-900"
        : "bg-slate-200 text-slate-900 hover:bg-slate-300 dark:bg-slate-800 dark:text-slate-100 dark:hover:bg-slate-700"
    }`;
  return (
    <div className="flex flex-wrap items-end gap-x-4 gap-y-3">
      <nav aria-label="Chart range">
        <ul className="flex flex-wrap gap-2">
          {quick.map((k) => (
            <li key={k}>
              <Link
                href={`${path}${rangeToQuery({ kind: k })}`}
                scroll={false}
                aria-current={range?.kind === k ? "true" : undefined}
                className={pill(range?.kind === k)}
              >
                {RANGE_LABELS[k]}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {/* Remounted per range, not per poll: a live window moves every second, the fields must not. */}
      <Form
        key={range ? rangeToQuery(range) : "invalid"}
        action={path}
        scroll={false}
        className="flex flex-wrap items-end gap-2 text-sm"
        aria-label="Custom range"
      >
        <input type="hidden" name="range" value="custom" />
        <TimeField name="from" label="From (UTC)" value={window ? toUtcInputValue(window.from) : ""} />
        <TimeField name="to" label="To (UTC)" value={window ? toUtcInputValue(window.to) : ""} />
        <button type="submit" className={pill(range?.kind === "custom")}>
          Show window
        </button>
        <p id="time-format" className="basis-full text-xs text-slate-600 dark:text-slate-300">
          Times as YYYY-MM-DD HH:MM:SS (with .mmm when it has milliseconds), in UTC like every time on this page.
        </p>
      </Form>
    </div>
  );
}
