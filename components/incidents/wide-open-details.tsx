"use client";
import { useEffect, useRef } from "react";

/**
 * A <details> that starts open on a wide screen and closed on a phone: a long list folds away on a
 * small screen, and the page stays two screens tall. Closed on the server (no width there).
 */
export function WideOpenDetails({
  summary,
  children,
  className,
  testId,
}: {
  summary: React.ReactNode;
  children: React.ReactNode;
  className?: string;
  testId?: string;
}) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    if (ref.current && window.matchMedia("(min-width: 640px)").matches) ref.current.open = true;
  }, []);
  return (
    <details ref={ref} className={className} data-testid={testId}>
      <summary className="cursor-pointer font-semibold">{summary}</summary>
      {children}
    </details>
  );
}
