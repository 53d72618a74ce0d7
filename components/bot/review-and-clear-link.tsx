import Link from "next/link";

/**
 * Where a halted bot's card or breaker row sends the reader: an operator to review and clear it on
 * the bot page; a visitor or viewer to review it, and to sign in as an operator to clear, since no
 * clear is promised to someone who cannot make it. `named` adds the bot for screen readers where
 * several such links sit on one page.
 */
export function ReviewAndClearLink({ botId, canAct, named = false }: { botId: string; canAct: boolean; named?: boolean }) {
  const href = `/bots/${encodeURIComponent(botId)}`;
  const name = named ? <span className="sr-only"> the halt of {botId}</span> : null;
  const link = (text: string) => (
    <Link href={href} className="mt-1 inline-block py-1 font-semibold underline" data-testid="review-and-clear">
      {text}
      {name}
    </Link>
  );
  if (canAct) return link("Review and clear");
  return (
    <span data-testid="sign-in-to-clear">
      {link("Review")} ·{" "}
      <a href={`/login?next=${encodeURIComponent(href)}`} className="inline-block py-1 underline">
        sign in as an operator to clear
      </a>
    </span>
  );
}
