/** A duration as lib/text/format.ts formatAge writes it: "45 s", "1 min 0 s", "2 h 5 min", "3 d 4 h". */
const DURATION = /\b\d+ (?:d|h|min|s)(?: \d+ (?:h|min|s))?\b/g;

/**
 * Text whose durations never break across lines ("limit 1 min / 0 s" on a phone). The text keeps its
 * ordinary spaces, so a copy of it (CSV, Markdown) stays plain; only the rendering holds each
 * duration on one line.
 */
export function KeepDurations({ text }: { text: string }) {
  const parts: React.ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(DURATION)) {
    if (m.index > last) parts.push(text.slice(last, m.index));
    parts.push(
      <span key={m.index} className="whitespace-nowrap" data-testid="duration">
        {m[0]}
      </span>,
    );
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts}</>;
}
