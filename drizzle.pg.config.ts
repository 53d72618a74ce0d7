import { defineConfig } from "drizzle-kit";

// The journal on PostgreSQL (lib/db/pg-schema.ts). DRIZZLE_OUT lets scripts/check-drizzle.mjs
// generate into a scratch copy and compare. No credentials: generate needs no database.
export default defineConfig({
  dialect: "postgresql",
  schema: "./lib/db/pg-schema.ts",
  out: process.env.DRIZZLE_OUT ?? "./drizzle/pg",
});
