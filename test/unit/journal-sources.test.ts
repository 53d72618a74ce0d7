import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { parseJournalList, parseSourcesFile, redactText } from "@/lib/journal-sources";

describe("journal sources", () => {
  it("keeps one path as one source named after its file, as before", () => {
    const env = parseEnv({ DRIFTWATCH_JOURNAL: "./data/journal.db" });
    expect(env.journalPath).toBe(path.resolve("./data/journal.db"));
    expect(env.journals).toEqual([{ name: "journal", kind: "sqlite", file: path.resolve("./data/journal.db") }]);
  });

  it("reads a comma-separated list, each source named after its file", () => {
    const parsed = parseJournalList(" /j/alpha.db, /j/beta.sqlite ,", "/work");
    expect(parsed).toEqual({
      ok: true,
      sources: [
        { name: "alpha", kind: "sqlite", file: "/j/alpha.db" },
        { name: "beta", kind: "sqlite", file: "/j/beta.sqlite" },
      ],
    });
  });

  it("refuses the same journal twice and two journals with one name, naming both", () => {
    expect(parseJournalList("/j/a.db,/j/a.db", "/")).toMatchObject({ ok: false, message: expect.stringMatching(/names \/j\/a\.db twice/) });
    const clash = parseSourcesFile(
      JSON.stringify({
        sources: [
          { name: "a", journal: "/x/j.db" },
          { name: "a", journal: "/y/j.db" },
        ],
      }),
      "/c/s.json",
    );
    expect(clash).toMatchObject({ ok: false, message: expect.stringContaining(`two sources the name "a" (/x/j.db and /y/j.db)`) });
  });

  it("names two journals of one file name after their folders too", () => {
    const parsed = parseJournalList("/srv/bot-1/journal.db,/srv/bot-2/journal.db,/srv/x.db", "/");
    expect(parsed.ok && parsed.sources.map((s) => s.name)).toEqual(["bot-1-journal", "bot-2-journal", "x"]);
  });

  it("reads a sources file, its journal paths relative to the file's folder", () => {
    const parsed = parseSourcesFile(
      JSON.stringify({
        sources: [
          { name: "desk-1", journal: "one.db" },
          { name: "desk-2", journal: "/abs/two.db" },
        ],
      }),
      "/etc/dw/sources.json",
    );
    expect(parsed).toEqual({
      ok: true,
      sources: [
        { name: "desk-1", kind: "sqlite", file: "/etc/dw/one.db" },
        { name: "desk-2", kind: "sqlite", file: "/abs/two.db" },
      ],
    });
  });

  it("names the field that is wrong in a sources file", () => {
    const bad = parseSourcesFile(
      JSON.stringify({
        sources: [
          { name: "ok", journal: "a.db" },
          { name: "no spaces", journal: "b.db" },
        ],
      }),
      "/c/s.json",
    );
    expect(bad).toMatchObject({ ok: false, message: expect.stringContaining("sources.1.name must be 1 to 64 letters") });
    const unknown = parseSourcesFile(JSON.stringify({ sources: [{ name: "a", journal: "a.db", url: "x" }] }), "/c/s.json");
    expect(unknown).toMatchObject({ ok: false, message: expect.stringContaining("sources.0") });
    expect(parseSourcesFile("{", "/c/s.json")).toMatchObject({ ok: false, message: expect.stringContaining("is not JSON") });
    expect(parseSourcesFile(JSON.stringify({ sources: [] }), "/c/s.json")).toMatchObject({
      ok: false,
      message: expect.stringContaining("sources must list at least one"),
    });
  });

  it("takes DRIFTWATCH_SOURCES from a file and refuses it beside DRIFTWATCH_JOURNAL", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "dw-sources-"));
    const file = path.join(dir, "sources.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        sources: [
          { name: "a", journal: "a.db" },
          { name: "b", journal: "b.db" },
        ],
      }),
    );
    expect(parseEnv({ DRIFTWATCH_SOURCES: file }).journals.map((j) => j.file)).toEqual([path.join(dir, "a.db"), path.join(dir, "b.db")]);
    expect(parseEnv({ DRIFTWATCH_SOURCES: file }).journalPath).toBe(path.join(dir, "a.db"));
    expect(() => parseEnv({ DRIFTWATCH_SOURCES: file, DRIFTWATCH_JOURNAL: "x.db" })).toThrow(/DRIFTWATCH_SOURCES and DRIFTWATCH_JOURNAL are both set/);
    expect(() => parseEnv({ DRIFTWATCH_SOURCES: path.join(dir, "nope.json") })).toThrow(/DRIFTWATCH_SOURCES file .*nope\.json cannot be read/);
    fs.rmSync(dir, { recursive: true });
  });

  it("reads a PostgreSQL source from a URL in DRIFTWATCH_JOURNAL or from the file, and never shows its password", () => {
    const list = parseJournalList("/j/alpha.db,postgresql://bot:s3cr%40t@db1.example:5432/fleet?sslmode=require", "/");
    expect(list.ok).toBe(true);
    if (!list.ok) return;
    const pg = list.sources[1]!;
    expect(pg).toMatchObject({ name: "fleet", kind: "postgres", file: "postgresql://bot@db1.example:5432/fleet?sslmode=require" });
    if (pg.kind !== "postgres") return;
    expect(pg.password()).toBe("s3cr@t");
    expect(JSON.stringify(list)).not.toContain("s3cr");

    const env = { DW_PG_PASSWORD: "hunter2" };
    const file = parseSourcesFile(
      JSON.stringify({
        sources: [
          { name: "hosts", kind: "postgres", url: "postgres://bot@db1/fleet", passwordEnv: "DW_PG_PASSWORD" },
          { name: "a", journal: "a.db" },
        ],
      }),
      "/c/s.json",
      env,
    );
    expect(file).toMatchObject({
      ok: true,
      sources: [{ name: "hosts", kind: "postgres", file: "postgres://bot@db1/fleet", passwordEnv: "DW_PG_PASSWORD" }, { kind: "sqlite" }],
    });
    if (file.ok && file.sources[0]!.kind === "postgres") expect(file.sources[0]!.password()).toBe("hunter2");
    expect(JSON.stringify(file)).not.toContain("hunter2");
  });

  it("refuses a PostgreSQL source it could not connect with, saying why, without the password", () => {
    const src = (extra: object) => JSON.stringify({ sources: [{ name: "p", kind: "postgres", url: "postgresql://bot@db1/fleet", ...extra }] });
    expect(parseSourcesFile(src({ passwordEnv: "NOT_SET" }), "/c/s.json", {})).toMatchObject({
      ok: false,
      message: expect.stringContaining("reads its password from NOT_SET, which is not set"),
    });
    const both = parseSourcesFile(src({ url: "postgresql://bot:pw1234@db1/fleet", passwordEnv: "X" }), "/c/s.json", { X: "y" });
    expect(both).toMatchObject({ ok: false, message: expect.stringContaining("both in its URL and in passwordEnv") });
    expect(JSON.stringify(both)).not.toContain("pw1234");
    const inQuery = parseJournalList("postgresql://bot@db1/fleet?password=pw1234", "/");
    expect(inQuery).toMatchObject({ ok: false, message: expect.stringContaining("password in its query") });
    expect(JSON.stringify(inQuery)).not.toContain("pw1234");
    expect(parseJournalList("postgresql://bot:pw1234@db1/", "/")).toMatchObject({ ok: false, message: expect.stringContaining("names no database") });
    expect(parseSourcesFile(src({ url: "mysql://x/y" }), "/c/s.json")).toMatchObject({
      ok: false,
      message: expect.stringContaining("must be a postgresql:// URL"),
    });
    expect(parseJournalList("postgresql://a@h/db,postgresql://a@h/db", "/")).toMatchObject({ ok: false, message: expect.stringContaining("twice") });
  });

  it("cuts a password out of any driver message", () => {
    expect(redactText("could not connect to postgresql://bot:pw1234@db1/fleet: pw1234 refused", ["pw1234"])).toBe(
      "could not connect to postgresql://bot@db1/fleet: (redacted) refused",
    );
  });
});
