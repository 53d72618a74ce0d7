import "server-only";
/**
 * The server-action ids of this build of the console, for proxy.ts to refuse a post naming any
 * other one before Next logs a stack for it (lib/http/request-limits.ts rejectUnknownAction).
 *
 * They are read once from the build's server-reference manifest: a file Next writes and reads
 * itself, not a published API (checked against Next 16.4). Wherever it cannot be read, or does
 * not look as expected (under `next dev`, or a later Next that moved it), this answers null and
 * Next's own handling of an unknown action stays in charge: the check turns itself off, never
 * refuses a real action.
 */
import fs from "node:fs";
import path from "node:path";

let ids: ReadonlySet<string> | null | undefined;

export function builtActionIds(): ReadonlySet<string> | null {
  if (ids !== undefined) return ids;
  ids = null;
  if (process.env.NODE_ENV !== "production") return ids;
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(process.cwd(), ".next", "server", "server-reference-manifest.json"), "utf8")) as {
      node?: Record<string, unknown>;
      edge?: Record<string, unknown>;
    };
    const all = [...Object.keys(manifest.node ?? {}), ...Object.keys(manifest.edge ?? {})];
    if (all.length > 0) ids = new Set(all);
  } catch {
    // not a production build in this folder: Next decides
  }
  return ids;
}
