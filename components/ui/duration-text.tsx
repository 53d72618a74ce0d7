import { formatDuration } from "@/lib/text/format";
import { durationPieces } from "@/lib/text/wrap";

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

/** Words that hold durations ("limit 1 min 0 s", "not yet (114 d 23 h so far)"), each duration kept on one line, the text unchanged. */
export function DurationWords({ text }: { text: string }) {
  return (
    <>
      {durationPieces(text).map((p, i) =>
        p.whole ? (
          // An age (a heartbeat's) differs between the server's render and the browser's by the load time.
          <span key={i} className="whitespace-nowrap" data-testid="duration" data-duration="" suppressHydrationWarning>
            {p.text}
          </span>
        ) : (
          p.text
        ),
      )}
    </>
  );
}
