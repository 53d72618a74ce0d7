import { UtcTime } from "@/components/ui/utc-time";
import { signedQty } from "@/lib/text/format";
import type { CorrectionView } from "@/lib/queries/book-corrections";
import { visibleText } from "@/lib/text/visible-text";

const KIND_WORDS = { adopt_exchange: "adopted the exchange's size", flattened_on_venue: "flattened on the venue" } as const;

/** The bot's book corrections, newest first: who, when, what, before → after, the note, and whether the bot's books agree since. */
export function BookCorrectionsList({ corrections }: { corrections: CorrectionView[] }) {
  if (corrections.length === 0) return <p className="text-sm">No book corrections for this bot.</p>;
  return (
    <ul className="space-y-2" aria-label="Book corrections">
      {corrections.map((c) => (
        <li key={c.id} data-testid="book-correction" data-symbol={c.symbol} className="rounded border border-slate-300 p-2 text-sm dark:border-slate-600">
          <p>
            <UtcTime iso={c.correctedAt} />: {c.correctedBy} {KIND_WORDS[c.kind]} for <span className="font-mono font-semibold">{c.symbol}</span>, book{" "}
            <span className="font-mono">{signedQty(c.ours)}</span> → <span className="font-mono">{signedQty(c.after)}</span> (the exchange showed{" "}
            <span className="font-mono">{signedQty(c.theirs)}</span>).
          </p>
          <p>“{visibleText(c.note)}”</p>
          <p data-testid="correction-status" className="font-semibold">
            {c.status.state === "in_sync" ? (
              <>
                Applied: in sync since <UtcTime iso={c.status.since} />.
              </>
            ) : c.status.state === "pending" ? (
              "Waiting for the bot's next cycle to apply it."
            ) : (
              `Applied, but ${c.symbol} still drifts: look at its line above.`
            )}
          </p>
        </li>
      ))}
    </ul>
  );
}
