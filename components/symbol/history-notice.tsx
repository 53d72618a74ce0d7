import Link from "next/link";
import { UtcTime } from "@/components/ui/utc-time";
import { formatAgo } from "@/lib/text/format";
import { RANGE_LABELS, rangeToQuery, type HistoryNotice as Notice, type SymbolRange } from "@/lib/url-state/symbol";

/** The window that ends now is empty because the data stops earlier: say so, offer where it is. */
/** `now` is null until the browser knows it (the age is then left out). */
export function HistoryNotice({ notice, range, path, now }: { notice: Notice; range: SymbolRange; path: string; now: number | null }) {
  return (
    <div
      role="status"
      data-testid="history-notice"
      className="rounded border border-sky-600 bg-sky-50 p-3 text-sm text-sky-950 dark:bg-sky-950 dark:text-sky-50"
    >
      <p>
        No data in the last {RANGE_LABELS[range.kind]}: the bot&apos;s latest reconciliation is from <UtcTime iso={notice.latestAt} />
        {now !== null && ` (${formatAgo(now - Date.parse(notice.latestAt))})`}. If you are reviewing history, show
      </p>
      <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1">
        {notice.offers.map((o) => (
          <li key={o.label}>
            <Link href={`${path}${rangeToQuery(o.range)}`} scroll={false} className="font-semibold underline">
              {o.label}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
