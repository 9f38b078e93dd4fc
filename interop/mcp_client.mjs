// An MCP client built on the official TypeScript SDK, driving `skills mcp`
// for the Go interop tests (mcp_client_test.go). Every request goes through
// the SDK's client methods, which check each result against the SDK's own
// schemas and throw on any mismatch. It prints one JSON object on stdout:
// what it saw.
//
//   node mcp_client.mjs stdio <skills binary> <config> <root folder>
//   node mcp_client.mjs http <url> <root folder> [showcase]
//
// With "showcase", the prompt "showcase" is rendered too: its handler
// returns a message of every MCP content type; its argument's declared
// values are completed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema, ResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [mode, ...rest] = process.argv.slice(2);
let transport, root;
if (mode === "stdio") {
  const [bin, config] = rest;
  root = rest[2];
  transport = new StdioClientTransport({ command: bin, args: ["mcp", "--dev", "--config", config, "--page-size", "2"], env: { ...process.env }, stderr: "inherit" });
} else {
  transport = new StreamableHTTPClientTransport(new URL(rest[0]));
  root = rest[1];
}
const showcase = rest.includes("showcase");

const client = new Client({ name: "interop-mcp-client", version: "1.0.0" });
let listChanged = 0;
let notify;
client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
  listChanged++;
  if (notify) notify();
});
const updated = [];
let notifyUpdated;
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
  updated.push(n.params.uri);
  if (notifyUpdated) notifyUpdated();
});
await client.connect(transport);

const seen = { server: client.getServerVersion(), capabilities: client.getServerCapabilities() };

// Every page of resources, as a client pages them.
const uris = [];
let cursor;
seen.pages = 0;
do {
  const page = await client.listResources(cursor ? { cursor } : {});
  uris.push(...page.resources.map((r) => r.uri));
  cursor = page.nextCursor;
  seen.pages++;
} while (cursor);
seen.resources = uris;
seen.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
seen.read = (await client.readResource({ uri: "iii://pdf-forms" })).contents[0].text;
try {
  await client.readResource({ uri: "iii://no-such-skill" });
  seen.unknown = "no error";
} catch (err) {
  seen.unknown = { code: err.code, message: err.message };
}
try {
  await client.readResource({ uri: "https://example.com/SKILL.md" });
  seen.otherScheme = "no error";
} catch (err) {
  seen.otherScheme = { code: err.code, message: err.message };
}
const tools = (await client.listTools()).tools;
seen.tools = tools.map((t) => ({ name: t.name, properties: Object.keys(t.inputSchema.properties ?? {}) }));
// A form-building client (the MCP Inspector) needs one type per field.
seen.urisType = tools.find((t) => t.name === "skill__fetch").inputSchema.properties.uris.type;
seen.completion = (await client.complete({ ref: { type: "ref/resource", uri: "iii://{+path}" }, argument: { name: "path", value: "pdf" } })).completion;
const search = await client.callTool({ name: "skill__search", arguments: { query: "fill in a pdf form" } });
seen.search = search.structuredContent;
const fetched = await client.callTool({ name: "skill__fetch", arguments: { uris: ["iii://pdf-forms"] } });
seen.fetch = fetched.content[0].text;
const bad = await client.callTool({ name: "skill__search", arguments: { query: "   " } });
seen.badSearch = { isError: bad.isError, text: bad.content[0].text };
seen.prompts = (await client.listPrompts()).prompts.map((p) => p.name);

// The MCP Skills extension (SEP-2640): no SDK method exists for it, so
// its calls go through client.request, checked against the SDK's base
// result schema. Each file listed is read and checked as a host must:
// the bytes read have the entry's digest and size.
seen.skillsList = await client.request({ method: "skills/list", params: {} }, ResultSchema);
seen.skillFiles = [];
for (const skill of seen.skillsList.skills) {
  for (const file of skill.resources) {
    const content = (await client.readResource({ uri: file.uri })).contents[0];
    const bytes = content.blob !== undefined ? Buffer.from(content.blob, "base64") : Buffer.from(content.text, "utf8");
    const digest = "sha256:" + createHash("sha256").update(bytes).digest("hex");
    seen.skillFiles.push({ uri: file.uri, verified: digest === file.digest && bytes.length === file.size, blob: content.blob !== undefined });
  }
}
seen.skillGet = await client.request({ method: "skills/get", params: { uri: "skill://pdf-forms/SKILL.md" } }, ResultSchema);
seen.directory = [];
cursor = undefined;
do {
  const page = await client.request({ method: "resources/directory/read", params: cursor ? { uri: "skill://pdf-forms", cursor } : { uri: "skill://pdf-forms" } }, ResultSchema);
  seen.directory.push(...page.resources);
  cursor = page.nextCursor;
} while (cursor);
try {
  await client.request({ method: "skills/get", params: { uri: "skill://no-such-skill/SKILL.md" } }, ResultSchema);
  seen.skillGetUnknown = "no error";
} catch (err) {
  seen.skillGetUnknown = { code: err.code, message: err.message };
}
seen.prompt = (await client.getPrompt({ name: "review", arguments: {} })).messages;
try {
  await client.getPrompt({ name: "no-such-prompt", arguments: {} });
  seen.unknownPrompt = "no error";
} catch (err) {
  seen.unknownPrompt = { code: err.code, message: err.message };
}
if (showcase) {
  seen.showcase = (await client.getPrompt({ name: "showcase", arguments: { topic: "forms" } })).messages;
  seen.showcaseCompletion = (await client.complete({ ref: { type: "ref/prompt", name: "showcase" }, argument: { name: "topic", value: "f" } })).completion;
}

// A skill folder added on disk reaches the client as list_changed, and an
// edit of a subscribed skill as resources/updated.
await client.subscribeResource({ uri: "iii://pdf-forms" });
const within = (what, arm) =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${what} within 10 s`)), 10000);
    arm(() => {
      clearTimeout(timer);
      resolve();
    });
  });
const changed = within("resources/list_changed", (done) => (notify = done));
const edited = within("resources/updated for iii://pdf-forms", (done) => (notifyUpdated = () => updated.includes("iii://pdf-forms") && done()));
mkdirSync(join(root, "added-later"), { recursive: true });
writeFileSync(join(root, "added-later", "SKILL.md"), "---\nname: added-later\ndescription: Added while the client was connected.\n---\n# Added later\n");
writeFileSync(join(root, "pdf-forms", "SKILL.md"), "---\nname: pdf-forms\ndescription: Fill in PDF forms field by field.\n---\n# PDF forms\n\nList the fields, then fill them. Edited.\n");
await Promise.all([changed, edited]);
seen.updated = updated;
seen.listChanged = listChanged;
seen.afterChange = [];
cursor = undefined;
do {
  const page = await client.listResources(cursor ? { cursor } : {});
  seen.afterChange.push(...page.resources.map((r) => r.uri));
  cursor = page.nextCursor;
} while (cursor);

await client.close();
process.stdout.write(JSON.stringify(seen) + "\n");
