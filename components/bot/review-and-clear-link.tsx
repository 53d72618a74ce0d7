"use client";
import Link from "next/link";
import { useSignedInViewer } from "@/components/auth/can-act";

/**
 * Where a halted bot's card or breaker row sends the reader: an operator to review and clear it on
 * the bot page; a visitor to review it, and to sign in as an operator to clear, since no clear is
 * promised to someone who cannot make it; a signed-in viewer to review it, told only an operator clears. `named` adds the bot for screen readers where
 * several such links sit on one page.
 */
export function ReviewAndClearLink({ botId, canAct, named = false }: { botId: string; canAct: boolean; named?: boolean }) {
  const viewer = useSignedInViewer();
  const href = `/bots/${encodeURIComponent(botId)}`;
  const name = named ? <span className="sr-only"> the halt of {botId}</span> : null;
  const link = (text: string) => (
    <Link href={href} className="mt-1 inline-block py-1 font-semibold underline" data-testid="review-and-clear">
      {text}
      {name}
    </Link>
  );
  if (canAct) return link("Review and clear");
  if (viewer)
    return (
      <span data-testid="sign-in-to-clear">
        {link("Review")} · <span className="inline-block py-1">only an operator can clear it</span>
      </span>
    );
  return (
    <span data-testid="sign-in-to-clear">
      {link("Review")} ·{" "}
      <a href={`/login?next=${encodeURIComponent(href)}`} className="inline-block py-1 underline">
        sign in as an operator to clear
      </a>
    </span>
  );
}
