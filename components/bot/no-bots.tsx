export function NoBots({ file }: { file: string }) {
  return (
    <section aria-labelledby="no-bots" className="rounded-lg border border-dashed border-slate-400 p-6">
      <h2 id="no-bots" className="text-lg font-semibold">
        No bots have written to this journal yet
      </h2>
      <p className="mt-2 text-sm">
        The console is reading <span className="break-all font-mono">{file}</span>, which has the journal schema but no rows in <code>bots</code>.
      </p>
      <ol className="mt-3 list-inside list-decimal space-y-1 text-sm">
        <li>
          Point the bot at this file (it must use WAL mode and a busy timeout of at least 5 s; see <code>docs/journal.md</code>).
        </li>
        <li>
          Have it insert its row into <code>bots</code> and <code>breakers</code> on start and update <code>bots.heartbeat_at</code> every cycle.
        </li>
        <li>
          Or try the console on simulated bots: <code>npm run demo</code>.
        </li>
      </ol>
    </section>
  );
}
