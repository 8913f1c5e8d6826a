// A second, independent MCP client for CI: the official TypeScript SDK against a live
// Continuity server. Connects with a bearer token, initializes, lists the tools, remembers a
// statement and recalls it, and checks that a bad argument comes back as a tool error in the
// envelope. Exits non-zero on any failure.
//
//   CONTINUITY_MCP_URL=http://127.0.0.1:8000/mcp CONTINUITY_TOKEN=cont_pat_... node check.mjs

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const EXPECTED_TOOLS = [
  "memory_bootstrap", "memory_capabilities", "memory_checkpoint", "memory_context",
  "memory_forget", "memory_history", "memory_link", "memory_recall", "memory_remember",
];

function check(condition, message) {
  if (!condition) throw new Error(message);
}

async function main() {
  const url = process.env.CONTINUITY_MCP_URL;
  const token = process.env.CONTINUITY_TOKEN;
  check(url && token, "set CONTINUITY_MCP_URL and CONTINUITY_TOKEN");

  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "continuity-ci-node", version: "1.0.0" });
  await client.connect(transport);
  try {
    const server = client.getServerVersion();
    check(server?.name === "continuity", `server name: ${JSON.stringify(server)}`);

    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name).sort();
    const missing = EXPECTED_TOOLS.filter((name) => !names.includes(name));
    check(missing.length === 0, `missing tools: ${missing} (listed: ${names})`);
    const remember = tools.find((tool) => tool.name === "memory_remember");
    check(remember.inputSchema.properties.kind.enum.includes("preference"), "kind enum missing");

    const marker = `node-${Date.now()}`;
    const content = `The CI node client prefers semicolons in JavaScript (${marker}).`;
    const written = await client.callTool({
      name: "memory_remember",
      arguments: { content, kind: "preference", tags: ["ci"] },
    });
    check(!written.isError, `remember failed: ${JSON.stringify(written.content)}`);
    const id = written.structuredContent.id;
    check(written.structuredContent.evolution.action === "created", "remember did not create");

    const found = await client.callTool({
      name: "memory_recall",
      arguments: { query: `semicolons in JavaScript ${marker}`, limit: 5 },
    });
    check(!found.isError, `recall failed: ${JSON.stringify(found.content)}`);
    const ids = found.structuredContent.memories.map((memory) => memory.id);
    check(ids.includes(id), `recall did not find ${id}: ${ids}`);

    const refused = await client.callTool({
      name: "memory_remember",
      arguments: { content: "x", kind: "opinion" },
    });
    check(refused.isError === true, "a bad kind was accepted");
    check(refused.structuredContent.error.code === "VALIDATION_ERROR", "no VALIDATION_ERROR envelope");

    console.log(`node MCP client: ok (protocol ${transport.protocolVersion ?? "negotiated"}, ` +
      `${names.length} tools, remembered and recalled ${id})`);
  } finally {
    await client.close();
  }
}

main().catch((error) => {
  console.error(`node MCP client: FAILED: ${error.stack || error}`);
  process.exit(1);
});
