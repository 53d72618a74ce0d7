import { splitIds } from "@/lib/text/wrap";
import { visibleText } from "@/lib/text/visible-text";

/**
 * Typed or machine text (an error, a reason, a note) that wraps at spaces on a phone: each id in
 * it gets its own monospace element that may break anywhere, and the words around it never split.
 * The text goes through visibleText; the parent sets the size and `break-words` as the last resort.
 */
export function WrappingText({ text }: { text: string }) {
  return (
    <>
      {splitIds(visibleText(text)).map((p, i) =>
        p.id ? (
          <span key={i} className="font-mono [overflow-wrap:anywhere]">
            {p.text}
          </span>
        ) : (
          p.text
        ),
      )}
    </>
  );
}
