// A client that answers what a tool asks (elicitation forms, sampling, roots), then prints the
// call's result and every question it was asked, as JSON.
// Usage: node asking.mjs TOOL 'ARGS_JSON' 'ANSWERS_JSON' -- COMMAND [ARGS...]   (stdio)
//        node asking.mjs TOOL 'ARGS_JSON' 'ANSWERS_JSON' --url URL              (streamable HTTP)
//   ANSWERS_JSON: {"elicitation": ElicitResult, "sampling": text, "roots": [Root, ...]}
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [tool, argsJson, answersJson, how, ...rest] = process.argv.slice(2);
const answers = JSON.parse(answersJson);
const transport =
  how === "--url"
    ? new StreamableHTTPClientTransport(new URL(rest[0]))
    : new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: "inherit" });
const client = new Client(
  { name: "mcpstub-asking-test", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } },
);
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params);
  return answers.elicitation;
});
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  asked.push(request.params);
  return { role: "assistant", content: { type: "text", text: answers.sampling }, model: "test-model" };
});
client.setRequestHandler(ListRootsRequestSchema, async () => {
  asked.push({ roots: true });
  return { roots: answers.roots };
});
await client.connect(transport);
const result = await client.callTool({ name: tool, arguments: JSON.parse(argsJson) });
console.log(JSON.stringify({ result, asked }));
await client.close();
