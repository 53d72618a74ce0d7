/** Problems with the journal that do not stop reading it (not in WAL mode, say). */
export function JournalWarnings({ warnings }: { warnings: readonly string[] }) {
  return (
    <>
      {warnings.map((w) => (
        <p key={w} role="alert" className="rounded border border-amber-500 bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50">
          {w}
        </p>
      ))}
    </>
  );
}
