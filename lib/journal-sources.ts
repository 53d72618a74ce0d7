// No "server-only": lib/env.ts reads the sources through it, and scripts run that with tsx.
/**
 * Which journals one console reads, each under a name: the comma-separated DRIFTWATCH_JOURNAL, or
 * the small JSON file DRIFTWATCH_SOURCES names. Pure apart from the path arithmetic: lib/env.ts
 * reads the variables and the file and hands the text here. A source is a kind ("sqlite" or
 * "postgres") and what opens it, so another engine adds a kind rather than a second list.
 */
import path from "node:path";
import { z } from "zod";

export type JournalSourceConfig = SqliteSourceConfig | PostgresSourceConfig;

export interface SqliteSourceConfig {
  /** Unique in the console; shown on banners and in the audit page. */
  name: string;
  kind: "sqlite";
  /** Absolute path of the journal file. */
  file: string;
}

/**
 * A journal in a PostgreSQL database. `file` is where it is as the console shows it: the URL with
 * any password taken out (redactUrl), so every message that names a source's `file` is safe to log.
 * The password itself is only reachable through `password()` (a function: JSON.stringify and the
 * console's logs never see it), from the URL as given or from the environment variable the file names.
 */
export interface PostgresSourceConfig {
  name: string;
  kind: "postgres";
  /** The connection URL without its password: safe to show. */
  file: string;
  /** The environment variable the password is read from, when the file names one. */
  passwordEnv: string | null;
  password: () => string | undefined;
}

const PG_URL = /^postgres(ql)?:\/\//i;

/** Whether a DRIFTWATCH_JOURNAL entry is a PostgreSQL URL rather than a file path. */
export const isPostgresUrl = (text: string) => PG_URL.test(text.trim());

/** The URL without its password (and without a password= query parameter): what every message shows. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "";
    for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.set(k, "redacted");
    return u.toString().replace(/^(postgres(?:ql)?:\/\/[^:@/]*):@/i, "$1@");
  } catch {
    return "postgresql://(an invalid URL)";
  }
}

/** The URL with its password put back, for the driver only (kept in memory, never shown). */
export function withPassword(url: string, password: string | undefined): string {
  if (!password) return url;
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return u.toString();
}

/** Any text with the password of `url` cut out: for driver errors that may echo the connection string. */
export function redactText(text: string, secrets: (string | undefined)[]): string {
  let out = text.replace(/(postgres(?:ql)?:\/\/[^:@/\s]*):[^@\s]*@/gi, "$1@");
  for (const s of secrets) if (s) out = out.split(s).join("(redacted)");
  return out;
}

function postgresSource(name: string, url: string, passwordEnv: string | null, env: Record<string, string | undefined>): PostgresSourceConfig | string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `is not a valid PostgreSQL URL (${redactUrl(url)}): write it as postgresql://USER@HOST:PORT/DATABASE`;
  }
  if (!u.hostname) return `names no host (${redactUrl(url)}): write it as postgresql://USER@HOST:PORT/DATABASE`;
  if (u.pathname.length <= 1) return `names no database (${redactUrl(url)}): write it as postgresql://USER@HOST:PORT/DATABASE`;
  if ([...u.searchParams.keys()].some((k) => /pass/i.test(k)))
    return `carries a password in its query (${redactUrl(url)}): give it as postgresql://USER:PASSWORD@HOST/DATABASE or, better, through passwordEnv`;
  const inUrl = u.password ? decodeURIComponent(u.password) : undefined;
  if (inUrl && passwordEnv)
    return `gives a password both in its URL and in passwordEnv ${passwordEnv}: give it in one place (passwordEnv keeps it out of the file)`;
  if (passwordEnv && !env[passwordEnv]) return `reads its password from ${passwordEnv}, which is not set: set it in the console's environment`;
  return {
    name,
    kind: "postgres",
    file: redactUrl(url),
    passwordEnv,
    password: passwordEnv ? () => env[passwordEnv] : () => inUrl,
  };
}

const SOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const NAME_RULE = "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const fileSchema = z.strictObject({
  sources: z
    .array(
      z.union([
        z.strictObject({
          name: z.string().regex(SOURCE_NAME, NAME_RULE),
          kind: z.literal("sqlite").default("sqlite"),
          journal: z.string().trim().min(1, "must name a journal file"),
        }),
        z.strictObject({
          name: z.string().regex(SOURCE_NAME, NAME_RULE),
          kind: z.literal("postgres"),
          url: z.string().trim().regex(PG_URL, "must be a postgresql:// URL"),
          passwordEnv: z.string().regex(ENV_NAME, "must be an environment variable's name").optional(),
        }),
      ]),
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
export function parseJournalList(text: string, cwd: string, env: Record<string, string | undefined> = {}): Parsed {
  const files = text
    .split(",")
    .map((f) => f.trim())
    .filter((f) => f.length > 0);
  if (files.length === 0) return { ok: false, message: "DRIFTWATCH_JOURNAL must name a file" };
  const sources: JournalSourceConfig[] = [];
  for (const f of files) {
    if (isPostgresUrl(f)) {
      // Named after its database: postgresql://u@db1/fleet is "fleet".
      const db = (() => {
        try {
          return decodeURIComponent(new URL(f).pathname.slice(1));
        } catch {
          return "";
        }
      })();
      const pg = postgresSource(defaultName(db || "postgres"), f, null, env);
      if (typeof pg === "string") return { ok: false, message: `DRIFTWATCH_JOURNAL entry ${sources.length + 1} ${pg}` };
      sources.push(pg);
      continue;
    }
    const file = path.resolve(cwd, f);
    sources.push({ name: defaultName(file), kind: "sqlite", file });
  }
  // One journal.db per bot folder is the usual layout: two files of one name take their folder's too.
  const taken = (name: string) => sources.filter((s) => s.name === name).length > 1;
  for (const s of sources.filter((x) => x.kind === "sqlite" && taken(x.name))) s.name = `${defaultName(path.dirname(s.file))}-${s.name}`.slice(0, 64);
  return unique(sources, "DRIFTWATCH_JOURNAL");
}

/**
 * The DRIFTWATCH_SOURCES file: `{"sources": [{"name": "alpha", "journal": "./alpha.db"}, …]}`. A
 * relative journal path is read from the file's folder. The error names the field (`sources.1.name`).
 */
export function parseSourcesFile(text: string, configFile: string, env: Record<string, string | undefined> = {}): Parsed {
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
  const sources: JournalSourceConfig[] = [];
  for (const [i, s] of result.data.sources.entries()) {
    if (s.kind === "postgres") {
      const pg = postgresSource(s.name, s.url, s.passwordEnv ?? null, env);
      if (typeof pg === "string") return { ok: false, message: `${where}: sources.${i}.url ${pg}` };
      sources.push(pg);
    } else sources.push({ name: s.name, kind: "sqlite", file: path.resolve(dir, s.journal) });
  }
  return unique(sources, where);
}
