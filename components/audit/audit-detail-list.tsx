import { WrappingText } from "@/components/ui/wrapping-text";
import { UtcTime } from "@/components/ui/utc-time";
import { auditDetailItems } from "@/lib/text/audit-detail";
import { visibleText } from "@/lib/text/visible-text";

/**
 * An audit entry's detail as a small definition list: labelled words, times as times, ids in
 * their own monospace element (they may break anywhere; the prose around them wraps at spaces).
 * Every value goes through visibleText; names were masked for this reader by the query.
 */
export function AuditDetailList({ detail }: { detail: string }) {
  const items = auditDetailItems(detail);
  if (items.length === 0) return <p className="mt-1 text-xs">No detail recorded.</p>;
  return (
    <dl className="mt-1 grid grid-cols-1 gap-x-3 gap-y-1 text-xs sm:grid-cols-[max-content_1fr]" data-testid="audit-detail">
      {items.map((item) => (
        <div key={item.key} className="contents">
          <dt className="font-semibold text-slate-700 dark:text-slate-200">{visibleText(item.label)}</dt>
          <dd className="min-w-0 whitespace-pre-wrap break-words max-sm:mb-1">
            {item.value.kind === "time" ? (
              <UtcTime iso={item.value.iso} />
            ) : item.value.kind === "id" ? (
              <code className="font-mono [overflow-wrap:anywhere]">{visibleText(item.value.text)}</code>
            ) : (
              <WrappingText text={item.value.text} />
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}
