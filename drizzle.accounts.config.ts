import { defineConfig } from "drizzle-kit";

// The accounts file's schema, apart from the journal's. After changing lib/db/accounts-schema.ts:
//   node_modules/.bin/drizzle-kit generate --config drizzle.accounts.config.ts
//   node scripts/stamp-migrations.mjs --dir=drizzle/accounts
// DRIZZLE_OUT lets scripts/check-drizzle.mjs generate into a scratch copy and compare.
export default defineConfig({
  dialect: "sqlite",
  schema: "./lib/db/accounts-schema.ts",
  out: process.env.DRIZZLE_OUT ?? "./drizzle/accounts",
});
