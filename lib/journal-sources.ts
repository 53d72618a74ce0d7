// No "server-only": lib/env.ts reads the sources through it, and scripts run that with tsx.
/**
 * Which journals one console reads, each under a name: the comma-separated DRIFTWATCH_JOURNAL, or
 * the small JSON file DRIFTWATCH_SOURCES names. Pure apart from the path arithmetic: lib/env.ts
 * reads the variables and the file and hands the text here. A source is a kind ("sqlite" today)
 * and what opens it, so another engine adds a kind rather than a second list.
 */
import path from "node:path";
import { z } from "zod";

export interface JournalSourceConfig {
  /** Unique in the console; shown on banners and in the audit page. */
  name: string;
  kind: "sqlite";
  /** Absolute path of the journal file. */
  file: string;
}

const SOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const NAME_RULE = "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";

const fileSchema = z.strictObject({
  sources: z
    .array(
      z.strictObject({
        name: z.string().regex(SOURCE_NAME, NAME_RULE),
        kind: z.literal("sqlite").default("sqlite"),
        journal: z.string().trim().min(1, "must name a journal file"),
      }),
    )
    .min(1, "must list at least one source"),
});

export type Parsed = { ok: true; sources: JournalSourceConfig[] } | { ok: false; message: string };

/** A name for a journal given by path alone: its file name without the extension. */
function defaultName(file: string): string {
  const base = path.basename(file).replace(/\.[^.]*$/, "") || path.basename(file);
  const cleaned = base.replace(/[^A-Za-z0-9_.-]/g, "-").replace(/^[^A-Za-z0-9]+/, "");
  return (cleaned || "journal").slice(0, 64);
}

function unique(sources: JournalSourceConfig[], where: string): Parsed {
  for (let i = 0; i < sources.length; i++) {
    for (let j = 0; j < i; j++) {
      const a = sources[j]!;
      const b = sources[i]!;
      if (a.file === b.file) return { ok: false, message: `${where} names ${a.file} twice (sources ${a.name} and ${b.name}): list each journal once` };
      if (a.name === b.name)
        return { ok: false, message: `${where} gives two sources the name ${JSON.stringify(a.name)} (${a.file} and ${b.file}): give each its own name` };
    }
  }
  return { ok: true, sources };
}

/**
 * `DRIFTWATCH_JOURNAL`: one path (today's form) or several, comma-separated (a path with a comma
 * needs DRIFTWATCH_SOURCES); each named after its file, or its folder and file when two files share a name.
 */
export function parseJournalList(text: string, cwd: string): Parsed {
  const files = text
    .split(",")
    .map((f) => f.trim())
    .filter((f) => f.length > 0);
  if (files.length === 0) return { ok: false, message: "DRIFTWATCH_JOURNAL must name a file" };
  const sources = files.map((f) => {
    const file = path.resolve(cwd, f);
    return { name: defaultName(file), kind: "sqlite" as const, file };
  });
  // One journal.db per bot folder is the usual layout: two files of one name take their folder's too.
  const taken = (name: string) => sources.filter((s) => s.name === name).length > 1;
  for (const s of sources.filter((x) => taken(x.name))) s.name = `${defaultName(path.dirname(s.file))}-${s.name}`.slice(0, 64);
  return unique(sources, "DRIFTWATCH_JOURNAL");
}

/**
 * The DRIFTWATCH_SOURCES file: `{"sources": [{"name": "alpha", "journal": "./alpha.db"}, …]}`. A
 * relative journal path is read from the file's folder. The error names the field (`sources.1.name`).
 */
export function parseSourcesFile(text: string, configFile: string): Parsed {
  const where = `DRIFTWATCH_SOURCES file ${configFile}`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `${where} is not JSON (${(error as Error).message})` };
  }
  const result = fileSchema.safeParse(json);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(the file)"} ${i.message}`).join("; ");
    return { ok: false, message: `${where}: ${problems}` };
  }
  const dir = path.dirname(configFile);
  return unique(
    result.data.sources.map((s) => ({ name: s.name, kind: s.kind, file: path.resolve(dir, s.journal) })),
    where,
  );
}
