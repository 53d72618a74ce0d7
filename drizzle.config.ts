import { defineConfig } from "drizzle-kit";

// DRIZZLE_OUT lets scripts/check-drizzle.mjs generate into a scratch copy and compare.
export default defineConfig({
  dialect: "sqlite",
  schema: "./lib/db/schema.ts",
  out: process.env.DRIZZLE_OUT ?? "./drizzle",
});
