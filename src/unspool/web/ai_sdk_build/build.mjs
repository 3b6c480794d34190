// Builds the demo page's copy of the Vercel AI SDK chat client, from the pinned npm package.
//
// The page has no build step of its own, so the AI SDK's own AbstractChat and
// DefaultChatTransport (what useChat wraps) are bundled into one ES module,
// ai-sdk-chat.js, with the licences of the packages bundled into it beside it
// (ai-sdk-chat.LICENSES.txt). unspool ships only this script and the pinned manifest;
// `unspool demo --web --build-ai-sdk` runs it (unspool.web.ai_sdk_build) into a per-user
// cache folder, never into the package or the repository.
//
// Usage: node build.mjs OUT_DIR      (run in a folder where `npm ci` installed package.json)
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";

const outDir = process.argv[2];
const version = (name) => JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8")).version;

const result = await esbuild.build({
  stdin: {
    contents: 'export { AbstractChat, DefaultChatTransport } from "ai";\n',
    resolveDir: process.cwd(),
    sourcefile: "ai-sdk-chat-entry.js",
  },
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  legalComments: "none",
  metafile: true,
  write: false,
  banner: {
    js: `/* The Vercel AI SDK's chat client (AbstractChat, DefaultChatTransport) from ai@${version("ai")}, ` +
      `bundled by unspool/web/ai_sdk_build/build.mjs with esbuild@${version("esbuild")}. ` +
      "Licences: ai-sdk-chat.LICENSES.txt beside this file. */",
  },
});

const packages = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (match) packages.add(match[1]);
}
const apache = readFileSync("node_modules/ai/LICENSE", "utf8");
const notices = [...packages].sort().map((name) => {
  const meta = JSON.parse(readFileSync(`node_modules/${name}/package.json`, "utf8"));
  const file = ["LICENSE", "LICENSE.md", "LICENSE.txt"].map((f) => join("node_modules", name, f)).find(existsSync);
  const text = file ? readFileSync(file, "utf8") : (meta.license === "Apache-2.0" ? apache : `License: ${meta.license}`);
  return `==== ${name}@${meta.version} (${meta.license}) ====\n\n${text.trim()}\n`;
});

writeFileSync(join(outDir, "ai-sdk-chat.js"), result.outputFiles[0].text);
writeFileSync(join(outDir, "ai-sdk-chat.LICENSES.txt"),
  "The packages bundled into ai-sdk-chat.js, and their licences.\n\n" + notices.join("\n"));
