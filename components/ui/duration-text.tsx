import { formatDuration } from "@/lib/text/format";

/**
 * A duration as the console writes it ("2 min 45 s", "114 d 23 h"), kept on one line: on a phone a
 * line may break before or after it, never inside it ("2 min / 45 s" read as two facts). The words
 * stay plain text, so a copy, the CSV and the post-mortem are unchanged.
 */
export function DurationText({ ms, testId }: { ms: number | null; testId?: string }) {
  return (
    <span className="whitespace-nowrap" data-testid={testId} data-duration="" suppressHydrationWarning>
      {formatDuration(ms)}
    </span>
  );
}
