// No "server-only": read by scripts/gateway.ts under tsx, outside Next, where that import throws.
/**
 * The venue gateway's config (`npm run gateway -- --config FILE`): which bot trades on which
 * account, and the *names* of the environment variables holding that account's keys. The file
 * holds no secret, so it can be committed beside the bots; the keys stay in the environment (a
 * read-only key suffices for look-ups).
 *
 *   {
 *     "host": "127.0.0.1", "port": 8790, "tokenEnv": "DRIFTWATCH_VENUE_TOKEN",
 *     "bots": {
 *       "alpha": { "exchange": "bybit", "accountType": "linear", "keyEnv": "ALPHA_KEY", "secretEnv": "ALPHA_SECRET" },
 *       "beta":  { "exchange": "okx", "accountType": "linear", "keyEnv": "BETA_KEY", "secretEnv": "BETA_SECRET", "passphraseEnv": "BETA_PASSPHRASE" }
 *     }
 *   }
 */
import { z } from "zod";
import { ACCOUNT_TYPES, CCXT_VENUES, CcxtAdapter, createCcxtExchange, type AccountType, type CcxtVenue } from "./ccxt-adapter";
import { secretWeakness } from "../auth/secret-strength";

const envName = z
  .string({
    error: (issue) =>
      issue.input === undefined ? "missing: name the environment variable that holds it" : "must be a string: the name of an environment variable",
  })
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the name of an environment variable, such as ALPHA_BYBIT_KEY");

const botSchema = z
  .object({
    exchange: z.enum(CCXT_VENUES),
    accountType: z.enum(ACCOUNT_TYPES),
    keyEnv: envName,
    secretEnv: envName,
    /** OKX only: the API passphrase. */
    passphraseEnv: envName.optional(),
    /** Spot accounts: the market ids whose base-currency balances are the bot's positions. */
    symbols: z.array(z.string().min(1)).min(1).optional(),
    /** A testnet or another REST root; the venue's own by default. */
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    timeoutMs: z.number().int().min(100).max(60_000).optional(),
    /** Overrides how long the venue is trusted to keep orders (see HISTORY_WINDOW_MS). */
    historyWindowHours: z
      .number()
      .positive()
      .max(24 * 90)
      .optional(),
  })
  .strict()
  .superRefine((bot, ctx) => {
    if (bot.exchange === "okx" && !bot.passphraseEnv)
      ctx.addIssue({ code: "custom", path: ["passphraseEnv"], message: "OKX keys come with a passphrase: name its variable" });
    // Here, with the other fields' problems, not after them: a second run that finds one more was a second round.
    if (bot.accountType === "spot" && !bot.symbols)
      ctx.addIssue({ code: "custom", path: ["symbols"], message: "a spot account needs its symbols (its positions are their base-currency balances)" });
  });

const configSchema = z
  .object({
    host: z.string().min(1).default("127.0.0.1"),
    port: z.number().int().min(0).max(65_535).default(8790),
    tokenEnv: envName.default("DRIFTWATCH_VENUE_TOKEN"),
    bots: z
      .record(z.string().regex(/^[A-Za-z0-9_.:-]+$/, "bot ids are letters, digits, _ . : -"), botSchema)
      .refine((b) => Object.keys(b).length > 0, "name at least one bot"),
  })
  .strict();

export interface GatewayBot {
  botId: string;
  venue: CcxtVenue;
  accountType: AccountType;
  adapter: CcxtAdapter;
}

export interface GatewaySetup {
  host: string;
  port: number;
  token: string;
  bots: GatewayBot[];
}

export class GatewayConfigError extends Error {
  override name = "GatewayConfigError";
}

/**
 * Parses and checks the config, then reads each named variable from `env`. Every problem is one
 * line naming its field (bots.alpha.keyEnv: ...), all of them at once.
 */
export function loadGatewayConfig(text: string, env: Readonly<Record<string, string | undefined>>): GatewaySetup {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new GatewayConfigError(`the config is not JSON: ${(error as Error).message}`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    throw new GatewayConfigError(parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "(config)"}: ${i.message}`).join("\n"));
  }
  const config = parsed.data;
  const problems: string[] = [];
  const read = (field: string, name: string): string => {
    const value = env[name];
    if (!value) problems.push(`${field}: environment variable ${name} is not set`);
    return value ?? "";
  };
  const token = read("tokenEnv", config.tokenEnv);
  if (token) {
    const weak = token.length < 16 ? "must be at least 16 characters" : secretWeakness(token);
    if (weak) problems.push(`tokenEnv: the token in ${config.tokenEnv} ${weak}`);
  }
  const bots: GatewayBot[] = [];
  for (const [botId, bot] of Object.entries(config.bots)) {
    const field = `bots.${botId}`;
    const apiKey = read(`${field}.keyEnv`, bot.keyEnv);
    const secret = read(`${field}.secretEnv`, bot.secretEnv);
    const password = bot.passphraseEnv ? read(`${field}.passphraseEnv`, bot.passphraseEnv) : undefined;
    if (problems.length > 0) continue;
    const exchange = createCcxtExchange({
      venue: bot.exchange,
      accountType: bot.accountType,
      apiKey,
      secret,
      password,
      baseUrl: bot.baseUrl,
      timeoutMs: bot.timeoutMs,
    });
    bots.push({
      botId,
      venue: bot.exchange,
      accountType: bot.accountType,
      adapter: new CcxtAdapter({
        venue: bot.exchange,
        accountType: bot.accountType,
        exchange,
        symbols: bot.symbols,
        historyWindowMs: bot.historyWindowHours === undefined ? undefined : bot.historyWindowHours * 3_600_000,
      }),
    });
  }
  if (problems.length > 0) throw new GatewayConfigError(problems.join("\n"));
  return { host: config.host, port: config.port, token, bots };
}
