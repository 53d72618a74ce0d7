import "server-only";
import type { ChecklistItem, UnacknowledgedDrift } from "../breaker/clear-checklist";
import type { JournalDb } from "../db/console";
import type { ClearRequestRow } from "../db/schema";
import { statement } from "../db/statements";
import { listBots, type BotSummary } from "./bots";
import { getClearChecklist } from "./clear-checklist";

export type ClearRequestView = Pick<ClearRequestRow, "id" | "requestedBy" | "requestedAt" | "expiresAt" | "reason" | "breakerVersion">;

export interface BotClearView {
  bot: BotSummary;
  items: ChecklistItem[];
  /** Drifts since the trip that nobody acknowledged, for the forms beside the checklist. */
  drifts: UnacknowledgedDrift[];
  twoPersonClear: boolean;
  pending: ClearRequestView[];
}

/** The bot page: its card, the clear checklist and any clear request waiting for approval. */
export function getBotClearView(params: {
  db: JournalDb;
  botId: string;
  now: Date;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
  doubtfulGraceMs: number;
  twoPersonClear: boolean;
}): BotClearView | null {
  const bot = listBots(params).find((b) => b.botId === params.botId);
  if (!bot) return null;
  const { items, facts } = getClearChecklist(params);
  const pending = statement(
    params.db,
    `SELECT id, requested_by AS requestedBy, requested_at AS requestedAt, expires_at AS expiresAt, reason, breaker_version AS breakerVersion
       FROM clear_requests WHERE bot_id = ? AND status = 'pending' AND expires_at > ? ORDER BY id DESC LIMIT 10`,
  ).all(params.botId, params.now.toISOString()) as ClearRequestView[];
  return { bot, items, drifts: facts.unacknowledgedDrifts, twoPersonClear: params.twoPersonClear, pending };
}
