/** Starting test/helpers/fault-process.ts and waiting for what it says, with deadlines, never fixed sleeps. */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { repoRoot, tempDir } from "./journal";

export interface FaultProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves once the process printed a line containing `text`; rejects on exit or after the deadline. */
  waitFor: (text: string, timeoutMs?: number) => Promise<void>;
  exited: Promise<number | null>;
  kill: () => Promise<void>;
}

export function startFault(args: string[]): FaultProcess {
  // node itself with tsx as a loader, not the tsx wrapper: SIGKILL must reach the process that acts.
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", "test/helpers/fault-process.ts", ...args], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d) => (out += d));
  child.stderr?.on("data", (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const waitFor = (text: string, timeoutMs = 30_000) =>
    new Promise<void>((resolve, reject) => {
      const deadline = setTimeout(() => done(new Error(`fault process did not print "${text}" within ${timeoutMs} ms:\n${out}\n${err}`)), timeoutMs);
      const check = () => out.includes(text) && done();
      const onExit = () => setImmediate(() => (out.includes(text) ? done() : done(new Error(`fault process exited before "${text}":\n${out}\n${err}`))));
      function done(error?: Error) {
        clearTimeout(deadline);
        child.stdout?.off("data", check);
        child.off("exit", onExit);
        if (error) reject(error);
        else resolve();
      }
      child.stdout?.on("data", check);
      child.once("exit", onExit);
      check();
    });
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  return { child, output: () => out + err, waitFor, exited, kill };
}

/** What a fresh process finds in the file: SQLite's own verdict on every page. */
export function integrityCheck(file: string): string {
  const db = new Database(file, { readonly: true, timeout: 5000 });
  try {
    return (db.pragma("integrity_check") as { integrity_check: string }[]).map((r) => r.integrity_check).join("; ");
  } finally {
    db.close();
  }
}

/** A copy of the journal (all of it, WAL included) with the first page of a table's b-tree overwritten. */
export function corruptCopy(file: string, table: string): string {
  const copy = path.join(tempDir("corrupt"), "journal.db");
  const src = new Database(file, { readonly: true });
  src.exec(`VACUUM INTO '${copy.replaceAll("'", "''")}'`);
  src.close();
  const db = new Database(copy);
  const { pageSize, root } = {
    pageSize: db.pragma("page_size", { simple: true }) as number,
    root: db.prepare(`SELECT rootpage FROM sqlite_schema WHERE name = ?`).pluck().get(table) as number,
  };
  db.close();
  const fd = fs.openSync(copy, "r+");
  fs.writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (root - 1) * pageSize);
  fs.closeSync(fd);
  return copy;
}
