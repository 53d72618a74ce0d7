import "server-only";
import { env } from "../env";
import type { AuditHead } from "./chain";
import { publishAuditHead } from "./head";

/** The console's GuardEnv.onAudited: the head of the journal the action went to, to its server log and head file. */
export function publishConsoleAuditHead(head: AuditHead, journalPath: string = env().journalPath): void {
  publishAuditHead({ journalPath, headFile: env().auditHeadFile, head });
}
