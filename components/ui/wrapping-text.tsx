import { Fragment } from "react";
import { idBreaks, splitIds } from "@/lib/text/wrap";
import { visibleText } from "@/lib/text/visible-text";

/**
 * Typed or machine text (an error, a reason, a note) that wraps at spaces on a phone: each id in
 * it gets its own monospace element that breaks first after its `/`, `?`, `&`, `=` and `_` (idBreaks)
 * and anywhere only where a part is too long for the line; the words around it never split.
 * The text goes through visibleText; the parent sets the size and `break-words` as the last resort.
 */
export function WrappingText({ text }: { text: string }) {
  return (
    <>
      {splitIds(visibleText(text)).map((p, i) =>
        p.id ? (
          <span key={i} className="font-mono [overflow-wrap:anywhere]">
            {idBreaks(p.text).map((part, j) => (
              <Fragment key={j}>
                {j > 0 && <wbr />}
                {part}
              </Fragment>
            ))}
          </span>
        ) : (
          p.text
        ),
      )}
    </>
  );
}
