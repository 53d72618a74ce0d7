import { connection } from "next/server";
import { BotCard } from "@/components/bots/bot-card";
import { NoBots } from "@/components/bots/no-bots";
import { JournalProblem } from "@/components/journal/journal-problem";
import { UtcTime } from "@/components/ui/utc-time";
import { getJournal } from "@/lib/db/console";
import { env } from "@/lib/env";
import { listBots } from "@/lib/queries/bots";

export default async function OverviewPage() {
  // Read the journal per request, never at build time.
  await connection();
  const journal = getJournal();
  if (!journal.ok) return <JournalProblem error={journal.error} />;

  const config = env();
  const now = new Date();
  const bots = listBots({
    db: journal.db,
    now,
    heartbeatStaleMs: config.heartbeatStaleMs,
    reconciliationStaleMs: config.reconciliationStaleMs,
  });

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-bold">Bots</h1>
        <p className="text-sm text-slate-600 dark:text-slate-300">
          Read <UtcTime iso={now.toISOString()} /> from <span className="break-all font-mono">{journal.info.file}</span>
        </p>
      </div>
      {journal.warnings.map((w) => (
        <p key={w} role="alert" className="rounded border border-amber-500 bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50">
          {w}
        </p>
      ))}
      {bots.length === 0 ? (
        <NoBots file={journal.info.file} />
      ) : (
        <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Bots in this journal">
          {bots.map((bot) => (
            <li key={bot.botId}>
              <BotCard bot={bot} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
