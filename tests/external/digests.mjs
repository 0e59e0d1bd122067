// Recomputes the digest of every tool a stdio MCP server lists, as any client can: SHA-256 of the
// tool object in RFC 8785 canonical JSON (keys sorted by UTF-16 code units, JSON.stringify's
// strings and numbers, no whitespace). Prints the computed and the reported digests as JSON.
// Usage: node digests.mjs -- COMMAND [ARGS...]
import { createHash } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

function canonical(value) {
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
  }
  return JSON.stringify(value);
}

const [sep, command, ...commandArgs] = process.argv.slice(2);
if (sep !== "--" || !command) {
  console.error("usage: node digests.mjs -- COMMAND [ARGS...]");
  process.exit(2);
}
const transport = new StdioClientTransport({ command, args: commandArgs, env: process.env, stderr: "inherit" });
const client = new Client({ name: "mcpstub-digest-check", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools();
const computed = {};
for (const tool of listed.tools) {
  computed[tool.name] = createHash("sha256").update(canonical(tool), "utf8").digest("hex");
}
console.log(JSON.stringify({ computed, reported: (listed._meta ?? {})["io.mcpstub/sha256"] ?? null }));
await client.close();
