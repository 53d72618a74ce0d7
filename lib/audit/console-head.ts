import "server-only";
import { env } from "../env";
import type { AuditHead } from "./chain";
import { publishAuditHead } from "./head";

/** The console's GuardEnv.onAudited: the head of its journal, to its server log and head file. */
export function publishConsoleAuditHead(head: AuditHead): void {
  const c = env();
  publishAuditHead({ journalPath: c.journalPath, headFile: c.auditHeadFile, head });
}
