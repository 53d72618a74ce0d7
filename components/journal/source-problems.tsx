import { asSentence } from "@/lib/text/sentence";
import { WrappingText } from "@/components/ui/wrapping-text";
import type { SourceHealth } from "@/lib/queries/fleet";

/**
 * With several journals: one banner per journal that cannot be read, above the others' data. Its
 * bots stay on the page as UNKNOWN; the banner goes once the journal reads again.
 */
export function SourceProblems({
  sources,
  consequence = "its bots are UNKNOWN",
}: {
  sources: readonly SourceHealth[] | undefined;
  /** What the page cannot show for such a journal (the incident pages: what happened there). */
  consequence?: string;
}) {
  const failing = (sources ?? []).filter((s) => !s.ok && s.problem);
  if (failing.length === 0) return null;
  return (
    <>
      {failing.map((s) => (
        <section
          key={s.name}
          role="alert"
          data-testid="source-problem"
          data-source={s.name}
          className="rounded-lg border-2 border-red-700 bg-red-50 p-4 text-sm text-red-950 dark:bg-red-950 dark:text-red-50"
        >
          <h2 className="font-bold">
            Journal {s.name} cannot be read: {consequence}
          </h2>
          {/* The file and the problem, then the fix once (the message would repeat it). */}
          <p className="mt-1 break-words">
            journal <span className="font-mono [overflow-wrap:anywhere]">{s.problem!.file}</span>: <WrappingText text={s.problem!.problem} />
          </p>
          <p className="mt-1">
            <span className="font-semibold">Fix:</span> {asSentence(s.problem!.fix)}
          </p>
        </section>
      ))}
    </>
  );
}
