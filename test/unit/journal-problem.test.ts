import { describe, expect, it } from "vitest";
import { JournalError } from "@/lib/db/journal-file";
import { ADDRESS_HIDDEN_NOTE, journalProblemFor, PATH_HIDDEN_NOTE } from "@/lib/http/journal-problem";

const file = "/home/trader/bots/alpha/journal.db";
const locked = new JournalError(
  "locked",
  file,
  "is locked by another process (since 2026-12-01T03:00:00.000Z), so nothing can be read from it",
  `find the process holding it ("fuser ${file}" or "lsof ${file}")`,
);

describe("a journal problem as a reader sees it", () => {
  it("gives a signed-in reader the whole path, unchanged", () => {
    expect(journalProblemFor(locked, { signedIn: true })).toEqual({ code: "locked", file, problem: locked.problem, fix: locked.fix, message: locked.message });
  });

  it("gives a reader who is not signed in the file's name only, in every field", () => {
    const shown = journalProblemFor(locked, { signedIn: false });
    expect(shown.code).toBe("locked");
    expect(shown.file).toBe(`journal.db (${PATH_HIDDEN_NOTE})`);
    expect(shown.fix).toBe('find the process holding it ("fuser journal.db" or "lsof journal.db")');
    expect(shown.message).toContain("journal journal.db: is locked by another process");
    for (const text of Object.values(shown)) expect(text).not.toContain("/home/trader");
  });

  it("hides the folder where a message names it without the file", () => {
    const e = new JournalError(
      "unreadable",
      file,
      "cannot be opened (EACCES: permission denied, open '/home/trader/bots/alpha')",
      "check the folder's permissions",
    );
    const shown = journalProblemFor(e, { signedIn: false });
    expect(shown.problem).toBe("cannot be opened (EACCES: permission denied, open '…')");
    expect(JSON.stringify(shown)).not.toContain("/home/trader");
  });

  it("gives a reader who is not signed in a PostgreSQL source's database name, never its server's address, in every field", () => {
    const url = "postgresql://driftwatch@db1.internal:5433/fleet";
    const e = new JournalError(
      "unreachable",
      url,
      "cannot be reached (connect ECONNREFUSED db1.internal:5433; getaddrinfo ENOTFOUND db1.internal)",
      `check that the server at ${url} is running`,
    );
    const shown = journalProblemFor(e, { signedIn: false });
    expect(shown.file).toBe(`fleet (${ADDRESS_HIDDEN_NOTE})`);
    expect(shown.problem).toBe("cannot be reached (connect ECONNREFUSED …; getaddrinfo ENOTFOUND …)");
    expect(shown.fix).toBe("check that the server at fleet is running");
    for (const text of Object.values(shown)) expect(text).not.toMatch(/db1|5433|driftwatch@/);
    // Node names the address it resolved, whatever name the URL gave; the server names the console's.
    const resolved = new JournalError(
      "unreachable",
      url,
      'cannot be reached (connect ECONNREFUSED 10.0.0.5:5433); no pg_hba.conf entry for host "10.0.0.9", user "driftwatch"; connect ETIMEDOUT [fd00::5]:5433 and fd00::5 and ::1 (since Dec 3 2026 08:05:40 UTC)',
      "check it",
    );
    expect(journalProblemFor(resolved, { signedIn: false }).problem).toBe(
      'cannot be reached (connect ECONNREFUSED …); no pg_hba.conf entry for host "…", user "driftwatch"; connect ETIMEDOUT … and … and … (since Dec 3 2026 08:05:40 UTC)',
    );
    // By IP, and the default port.
    const byIp = new JournalError("unreachable", "postgresql://u@10.1.2.3/fleet", "cannot be reached (connect ECONNREFUSED 10.1.2.3:5432)", "check it");
    expect(journalProblemFor(byIp, { signedIn: false }).problem).toBe("cannot be reached (connect ECONNREFUSED …)");
    expect(journalProblemFor(byIp, { signedIn: true }).problem).toContain("10.1.2.3:5432");
  });
});
