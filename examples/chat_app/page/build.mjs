// Bundles src/main.jsx (React, useChat, HttpAgent) into dist/page.js and copies index.html.
// Usage: node build.mjs [OUT_DIR]   (default: dist)
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";

const out = process.argv[2] ?? "dist";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/main.jsx"],
  bundle: true,
  format: "esm",
  minify: true,
  jsx: "automatic",
  define: { "process.env.NODE_ENV": '"production"' },
  outfile: join(out, "page.js"),
  logLevel: "warning",
});
copyFileSync("index.html", join(out, "index.html"));
