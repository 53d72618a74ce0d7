/**
 * A journal problem as a reader is shown it. The journal's absolute path says where the bot runs
 * and as whom (/home/trader/…): a signed-in account reads it whole, a reader who is not signed in
 * reads the file's name alone, with the problem and the fix otherwise intact. Pure: the caller says
 * whether the reader is signed in.
 */
import path from "node:path";
import type { JournalError } from "../db/journal-file";

export interface JournalProblemView {
  code: JournalError["code"];
  file: string;
  problem: string;
  fix: string;
  message: string;
}

export const PATH_HIDDEN_NOTE = "sign in to see the full path";

export function journalProblemFor(
  error: Pick<JournalError, "code" | "file" | "problem" | "fix" | "message">,
  reader: { signedIn: boolean },
): JournalProblemView {
  const { code, file, problem, fix, message } = error;
  if (reader.signedIn) return { code, file, problem, fix, message };
  const server = postgresServer(file);
  if (server) {
    // A PostgreSQL source: its database's name alone; the server's address (in the URL, and in the
    // driver's words: "connect ECONNREFUSED 10.0.0.5:5432") says where the desk's database lives.
    const hide = (text: string) => server.names.reduce((t, n) => t.split(n).join("…"), text.split(file).join(server.database)).replace(IP_ADDRESS, "…");
    return { code, file: `${server.database} (${ADDRESS_HIDDEN_NOTE})`, problem: hide(problem), fix: hide(fix), message: hide(message) };
  }
  const name = path.basename(file);
  const folder = path.dirname(file);
  // The file's path first, then its folder alone (a message may name either).
  const hide = (text: string) => text.split(file).join(name).split(folder).join("…");
  return { code, file: `${name} (${PATH_HIDDEN_NOTE})`, problem: hide(problem), fix: hide(fix), message: hide(message) };
}

export const ADDRESS_HIDDEN_NOTE = "sign in to see the server's address";

/**
 * Any IP address, with its port, in a driver's or server's words: Node names the address it
 * resolved (connect ECONNREFUSED 10.0.0.5:5432), and the server the console's own (no pg_hba.conf
 * entry for host "10.0.0.9"), whatever name the URL gave. An IPv6 address without brackets is
 * told from a time of day (08:05:40) by its "::" or a hex letter.
 */
const IP_ADDRESS =
  /\[[0-9A-Fa-f:.]+\](?::\d+)?|\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b|(?<![\w:])(?=[0-9A-Fa-f:]*(?:::|[A-Fa-f]))(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?![\w:])/g;

/** A PostgreSQL source's database, and the forms of its server's address a message may carry (longest first). */
function postgresServer(file: string): { database: string; names: string[] } | null {
  if (!/^postgres(ql)?:\/\//.test(file)) return null;
  try {
    const u = new URL(file);
    const host = u.hostname.replace(/^\[|\]$/g, "");
    const port = u.port || "5432";
    const names = [`${u.protocol}//${u.username ? `${u.username}@` : ""}${u.host}`, `${host}:${port}`, `${u.hostname}:${port}`, host].filter(Boolean);
    return { database: decodeURIComponent(u.pathname.slice(1)) || "postgres", names: [...new Set(names)].sort((a, b) => b.length - a.length) };
  } catch {
    return null;
  }
}
