import type { BookCorrectionsView } from "@/lib/queries/book-corrections";
import { BookCorrectionForm } from "./book-correction-form";
import { BookCorrectionsList } from "./book-corrections-list";
import { UtcTime } from "@/components/ui/utc-time";

/**
 * The bot's book against the exchange's: every symbol that drifts in the latest cycle, with the
 * correction an operator may make, and the corrections made so far. A size drift whose exchange
 * side is right ends here: no reconciliation comes out clean until the book says what the venue holds.
 */
export function BookSection({
  botId,
  book,
  canAct,
  notCurrent,
  unvouched = null,
}: {
  botId: string;
  book: BookCorrectionsView;
  canAct: boolean;
  notCurrent: boolean;
  /** Nothing vouches for the bot now (STALE or UNKNOWN, with why): its latest cycle may be its last. */
  unvouched?: { status: string; alarms: readonly string[] } | null;
}) {
  return (
    <section aria-labelledby="book-title" className="space-y-3 rounded-lg border border-slate-300 bg-white p-4 dark:border-slate-700 dark:bg-slate-900">
      <h2 id="book-title" className="text-xl font-bold">
        The bot&apos;s book
      </h2>
      {book.drifting.length === 0 ? (
        <InSync book={book} notCurrent={notCurrent} unvouched={unvouched} />
      ) : (
        <>
          <p className="text-sm">
            When the exchange is right (a fill the bot never saw, a position changed by hand), correct the bot&apos;s book: the bot counts the correction from
            its next cycle, and the correction acknowledges the drift. Settle any doubtful order on the symbol first.
          </p>
          <ul className="space-y-2">
            {book.drifting.map((line) => (
              <BookCorrectionForm key={line.symbol} botId={botId} line={line} canAct={canAct} notCurrent={notCurrent} />
            ))}
          </ul>
        </>
      )}
      <h3 className="font-semibold">Corrections</h3>
      <BookCorrectionsList corrections={book.corrections} />
    </section>
  );
}

/**
 * No symbol drifts in the latest compared cycle. Said as of that cycle: when the bot's latest
 * cycle was skipped (a fill settling) or failed, the books were not compared then, and "agrees"
 * would be a claim about now that nobody checked (a try-out saw it under an UNKNOWN badge).
 */
function InSync({
  book,
  notCurrent,
  unvouched,
}: {
  book: BookCorrectionsView;
  notCurrent: boolean;
  unvouched: { status: string; alarms: readonly string[] } | null;
}) {
  const { compared, latest } = book;
  if (compared === null)
    return (
      <p data-testid="book-in-sync" data-state="never-compared" className="text-sm">
        The bot has not compared its book with the exchange yet: nothing to correct.
      </p>
    );
  // Agreement in a cycle that may be the bot's last, or that this page read before it stopped
  // updating, is not agreement now: dated alone, it read as today's under a STALE badge (a try-out).
  if ((latest === null || latest.id === compared.id) && (notCurrent || unvouched))
    return (
      <p data-testid="book-in-sync" data-state="in-sync-unknown-now" className="text-sm">
        <strong>Not known now:</strong>{" "}
        {notCurrent ? (
          <>
            this page is not updating. When last read, every symbol agreed with the exchange in the bot&apos;s latest cycle, at <UtcTime iso={compared.at} />:
            nothing to correct then.
          </>
        ) : (
          <>
            nothing vouches for the bot ({unvouched!.status.toUpperCase()}: {unvouched!.alarms.join("; ")}). Every symbol agreed with the exchange in the last
            cycle it wrote, at <UtcTime iso={compared.at} />: nothing to correct from it. Check that the bot is running.
          </>
        )}
      </p>
    );
  if (latest === null || latest.id === compared.id)
    return (
      <p data-testid="book-in-sync" data-state="in-sync" className="text-sm">
        Every symbol agrees with the exchange in the bot&apos;s latest cycle, at <UtcTime iso={compared.at} />: nothing to correct.
      </p>
    );
  const why = latest.outcome === "skipped" ? "was skipped" : latest.outcome === "error" ? "failed" : `ended ${latest.outcome}`;
  // The state now first: a reader who stops after the first sentence must not take it for "in sync".
  return (
    <p data-testid="book-in-sync" data-state="not-compared-since" className="text-sm">
      <strong>
        Not compared since <UtcTime iso={compared.at} />:
      </strong>{" "}
      the bot&apos;s latest cycle, at <UtcTime iso={latest.at} />, {why} and did not compare the books, so whether they agree now is not known. At{" "}
      <UtcTime iso={compared.at} /> every symbol agreed with the exchange, so there is nothing to correct yet; the bot compares them again at its next cycle.
    </p>
  );
}
