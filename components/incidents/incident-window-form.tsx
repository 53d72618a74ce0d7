import { INCIDENT_KINDS, type IncidentKind } from "@/lib/url-state/incidents";

const kindLabels: Record<IncidentKind, string> = {
  order: "order events",
  reconciliation: "reconciliations",
  breaker: "trips and clears",
  operator: "operator actions",
};

const input =
  "w-full rounded border border-slate-400 bg-white px-2 py-1 font-mono text-sm dark:bg-slate-900 aria-[invalid=true]:border-2 aria-[invalid=true]:border-red-700";

/**
 * The window and filters as a plain GET form: it works without JavaScript, every value lands in
 * the URL, and a bad value comes back with the reason next to its field.
 */
export function IncidentWindowForm({
  values,
  bots,
  fieldErrors = {},
}: {
  values: { from: string; to: string; bot: string | null; kinds: IncidentKind[] };
  bots: string[];
  fieldErrors?: Record<string, string[]>;
}) {
  const field = (name: "from" | "to", labelText: string) => {
    const errors = fieldErrors[name];
    return (
      <label className="flex min-w-0 flex-col gap-1 text-sm">
        <span className="font-semibold">{labelText}</span>
        <input
          name={name}
          defaultValue={values[name]}
          placeholder="2026-08-10 15:30:00"
          spellCheck={false}
          autoComplete="off"
          aria-invalid={errors ? true : undefined}
          aria-describedby={errors ? `${name}-error` : "window-hint"}
          className={input}
        />
        {errors && (
          <span id={`${name}-error`} className="text-red-800 dark:text-red-300">
            {errors.join("; ")}
          </span>
        )}
      </label>
    );
  };
  return (
    <form method="get" action="/incidents" className="space-y-3 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-700 dark:bg-slate-900">
      <div className="grid gap-3 sm:grid-cols-[1fr_1fr_auto]">
        {field("from", "From (UTC)")}
        {field("to", "To (UTC, not included)")}
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-semibold">Bot</span>
          <select name="bot" defaultValue={values.bot ?? ""} className="rounded border border-slate-400 bg-white px-2 py-1 dark:bg-slate-900">
            <option value="">all bots</option>
            {bots.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
            {values.bot && !bots.includes(values.bot) && <option value={values.bot}>{values.bot} (not in this journal)</option>}
          </select>
        </label>
      </div>
      <p id="window-hint" className="text-xs text-slate-700 dark:text-slate-200">
        UTC times such as 2026-08-10 15:30:00 or 2026-08-10T15:30:00Z (as on a symbol page); at most 7 days. Leave both empty for the last hour; give one and
        the window is the hour from or up to it.
      </p>
      <div className="flex flex-wrap items-end justify-between gap-3">
        <fieldset className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <legend className="mb-1 font-semibold">Show</legend>
          {INCIDENT_KINDS.map((k) => (
            <label key={k} className="flex min-h-6 items-center gap-1.5">
              <input type="checkbox" name="kind" value={k} defaultChecked={values.kinds.includes(k)} className="size-4" />
              {kindLabels[k]}
            </label>
          ))}
        </fieldset>
        <button
          type="submit"
          className="rounded bg-slate-800 px-3 py-1.5 text-sm font-semibold text-white hover:bg-slate-900 focus-visible:outline-2 dark:bg-slate-200 dark:text-slate-900"
        >
          Show this window
        </button>
      </div>
    </form>
  );
}
