import { describe, expect, it } from "vitest";
import { isDamaged, sqliteErrorKind } from "@/lib/db/sqlite-error";

const coded = (code: unknown) => Object.assign(new Error("boom"), { code });

describe("sqliteErrorKind", () => {
  it.each([
    ["SQLITE_BUSY", "locked"],
    ["SQLITE_BUSY_SNAPSHOT", "locked"],
    ["SQLITE_LOCKED", "locked"],
    ["SQLITE_LOCKED_SHAREDCACHE", "locked"],
    ["SQLITE_CORRUPT", "corrupt"],
    ["SQLITE_CORRUPT_INDEX", "corrupt"],
    ["SQLITE_NOTADB", "not_sqlite"],
    ["SQLITE_FULL", "full"],
    ["SQLITE_READONLY", "readonly"],
    ["SQLITE_READONLY_DBMOVED", "readonly"],
    ["SQLITE_IOERR", "io"],
    ["SQLITE_IOERR_SHORT_READ", "io"],
    ["SQLITE_CANTOPEN", "cantopen"],
  ] as const)("%s is %s", (code, kind) => {
    expect(sqliteErrorKind(coded(code))).toBe(kind);
  });

  it.each(["SQLITE_CONSTRAINT_PRIMARYKEY", "SQLITE_ERROR", "SQLITE_MISMATCH", "SQLITE_BUSYNESS", "ENOENT", ""])("%s says nothing about the file", (code) => {
    expect(sqliteErrorKind(coded(code))).toBeNull();
  });

  it.each([null, undefined, "SQLITE_BUSY", 5, new Error("no code"), coded(5), { code: { toString: () => "SQLITE_BUSY" } }])(
    "a thrown %s without a text code is not a file problem",
    (thrown) => {
      expect(sqliteErrorKind(thrown)).toBeNull();
    },
  );

  it("damaged means corrupt pages or not a database at all", () => {
    expect(
      ["corrupt", "not_sqlite", "locked", "full", "readonly", "io", "cantopen", null].filter((k) => isDamaged(k as Parameters<typeof isDamaged>[0])),
    ).toEqual(["corrupt", "not_sqlite"]);
  });
});
