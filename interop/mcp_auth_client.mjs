// An MCP client built on the official TypeScript SDK, driving `skills mcp
// --http` with authentication for the Go interop test mcp_auth_test.go.
// It connects, reads, lists the tools and calls one, and prints one JSON
// object on stdout: what it saw.
//
//   node mcp_auth_client.mjs <url> none <tool>
//   node mcp_auth_client.mjs <url> token <tool> <bearer token>
//   node mcp_auth_client.mjs <url> oauth <tool> <issuer> <client id> <client secret> <scope>
//
// With oauth, the SDK's client_credentials provider finds the
// authorization server from the 401's resource_metadata (RFC 9728), gets
// a token for the server's resource there, and retries.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";

const [url, mode, tool, ...rest] = process.argv.slice(2);
const options = {};
if (mode === "token") {
  options.requestInit = { headers: { Authorization: `Bearer ${rest[0]}` } };
} else if (mode === "oauth") {
  const [issuer, clientId, clientSecret, scope] = rest;
  options.authProvider = new ClientCredentialsProvider({ clientId, clientSecret, scope, expectedIssuer: issuer });
}
const client = new Client({ name: "interop-mcp-auth-client", version: "1.0.0" });
const seen = {};
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), options));
} catch (err) {
  seen.connectError = { name: err.name, code: err.code, message: err.message };
  process.stdout.write(JSON.stringify(seen) + "\n");
  process.exit(0);
}
seen.resources = (await client.listResources()).resources.map((r) => r.uri);
seen.tools = (await client.listTools()).tools.map((t) => t.name).sort();
seen.search = !(await client.callTool({ name: "skill__search", arguments: { query: "pdf" } })).isError;
try {
  const res = await client.callTool({ name: tool, arguments: { from: "interop" } });
  seen.call = { isError: res.isError ?? false, text: res.content?.[0]?.text };
} catch (err) {
  seen.call = { error: { code: err.code, message: err.message } };
}
await client.close();
process.stdout.write(JSON.stringify(seen) + "\n");
