// Lists the tools of a stdio MCP server and calls one, printing JSON results.
// The TypeScript SDK validates structuredContent against the advertised outputSchema.
// Usage: node client.mjs TOOL 'ARGS_JSON' -- COMMAND [ARGS...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tool, argsJson, sep, command, ...commandArgs] = process.argv.slice(2);
if (sep !== "--" || !command) {
  console.error("usage: node client.mjs TOOL ARGS_JSON -- COMMAND [ARGS...]");
  process.exit(2);
}
const transport = new StdioClientTransport({ command, args: commandArgs, env: process.env, stderr: "inherit" });
const client = new Client({ name: "mcpstub-external-test", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools();
const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
console.log(JSON.stringify({ tools: listed.tools, result }));
await client.close();
