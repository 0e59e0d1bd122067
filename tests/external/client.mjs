// Lists the tools of a stdio MCP server and calls them, printing JSON results.
// The TypeScript SDK validates structuredContent against the advertised outputSchema.
// Usage: node client.mjs TOOL 'ARGS_JSON' -- COMMAND [ARGS...]
//        node client.mjs --calls '[[TOOL, ARGS], ...]' -- COMMAND [ARGS...]
//   The second form prints {tools, wireTools, results}: wireTools as the server sent them (the
//   client's own Tool model drops keys it does not know), then one entry per call, or
//   {error: message} when the client refused the answer (e.g. structuredContent that does not
//   match the outputSchema).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";

const [tool, argsJson, sep, command, ...commandArgs] = process.argv.slice(2);
if (sep !== "--" || !command) {
  console.error("usage: node client.mjs TOOL ARGS_JSON -- COMMAND [ARGS...]");
  process.exit(2);
}
const transport = new StdioClientTransport({ command, args: commandArgs, env: process.env, stderr: "inherit" });
const client = new Client({ name: "mcpstub-external-test", version: "1.0.0" });
await client.connect(transport);
const listed = await client.listTools();
if (tool === "--calls") {
  const results = [];
  for (const [name, args] of JSON.parse(argsJson)) {
    try {
      results.push(await client.callTool({ name, arguments: args }));
    } catch (error) {
      results.push({ error: String(error && error.message ? error.message : error) });
    }
  }
  const wire = await client.request({ method: "tools/list", params: {} }, ResultSchema);
  console.log(JSON.stringify({ tools: listed.tools, wireTools: wire.tools, results }));
} else {
  const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
  console.log(JSON.stringify({ tools: listed.tools, result }));
}
await client.close();
