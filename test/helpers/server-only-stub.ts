// Stands in for the "server-only" package under vitest, where every module runs on the server.
export {};
