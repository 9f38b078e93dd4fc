@decisions
Feature: Decisions where the sources disagree (docs/decisions.md, D1–D16)
  One or more scenarios per decision, each tagged with its number, e.g.
  go test ./features/ -godog.tags=@D12

  @D1 @engine
  Scenario: D1 the index cuts a long description to 140 characters plus "..."
    Given the skill "long" is registered with body:
      """
      # Long

      {big:200}
      """
    And the skill "exact" is registered with body:
      """
      # Exact

      {big:140}
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text has the line "- [`long`](iii://long) — Long — {big:140}..."
    And the result text has the line "- [`exact`](iii://exact) — Exact — {big:140}"

  @D1 @pure
  Scenario: D1 the description cut counts characters, not bytes
    When I evaluate "description" on:
      """
      # Title

      ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé
      """
    Then the result is "éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé..."
    And the result text has 143 characters

  @D2 @engine
  Scenario: D2 stream:: is refused for sections and prompt handlers; skill:: is not
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/stream/publish"}
      """
    Then the call fails with code "forbidden"
    And the error message is "Function 'stream::publish' is in an internal namespace and cannot back a skill resource"
    When I call "prompts::register" with:
      """
      {"name": "streamer", "description": "d", "function_id": "stream::publish"}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "streamer"}
      """
    Then the call fails with code "forbidden"
    And the error message is "Prompt handler 'stream::publish' is in an internal namespace and cannot back a prompt"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/skill/fetch"}
      """
    Then the call fails with code "unavailable"
    And the error message starts with "trigger skill::fetch: "
    And the error message contains "Provide uri or a non-empty uris array"

  @D3 @engine
  Scenario: D3 a legacy iii://x/worker::fn link is "not found" with a hint at the new form
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://x/worker::fn"}
      """
    Then the call fails with code "not_found"
    And the error message is "Skill not found: x/worker::fn (function links are written iii://fn/worker/fn since v0.2.0)"
    When I call "skill::fetch" with:
      """
      {"uri": "iii://demo/demo::guide"}
      """
    Then the call fails with code "not_found"
    And the error message is "Skill not found: demo/demo::guide (function links are written iii://fn/demo/guide since v0.2.0)"

  @D3 @engine
  Scenario: D3 keys that could never be registered read as not found
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://Skills"}
      """
    Then the call fails with code "not_found"
    And the error message is "Skill not found: Skills"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://x/echo"}
      """
    Then the error message is "Skill not found: x/echo"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://a//b"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://a//b"

  @D4 @engine
  Scenario: D4 glob patterns support {a,b} alternation
    Given the worker config has:
      """
      {"skills": ["fs-skills/{runbooks,playbooks}/**/*.md"]}
      """
    And the file "fs-skills/runbooks/deploy.md" contains:
      """
      # Deploy
      """
    And the file "fs-skills/playbooks/oncall.md" contains:
      """
      # On call
      """
    And the file "fs-skills/other/ignored.md" contains:
      """
      # Ignored
      """
    When I call "skills::list"
    Then the result at "skills" has 2 items
    And the result contains:
      """
      {"skills": [{"id": "playbooks/oncall", "origin": "fs"}, {"id": "runbooks/deploy", "origin": "fs"}]}
      """

  @D5 @engine
  Scenario: D5 the boot scan reports fs entries shadowed by state rows
    Given the skills scope holds the row "dual":
      """
      {"id": "dual", "skill": "# Dual from state\n", "registered_at": "2026-01-02T03:04:05.123456+00:00"}
      """
    And the file "fs-skills/dual.md" contains:
      """
      # Dual from disk
      """
    And the file "fs-skills/alone.md" contains:
      """
      # Alone
      """
    When I call "skills::list"
    Then the result contains:
      """
      {"skills": [{"id": "alone", "origin": "fs"},
                  {"id": "dual", "origin": "state", "bytes": 18, "registered_at": "2026-01-02T03:04:05.123456+00:00"}]}
      """
    And the worker output contains "fs entry shadowed by state"
    And the worker output contains "\"id\": \"dual\""
    And the worker output contains "\"shadowed\": 1"

  @D6 @engine
  Scenario: D6 a whitespace-only skill body is rejected
    When I call "skills::register" with:
      """
      {"id": "blank", "skill": " \n\t\n "}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "skill must be non-empty"
    When I call "skills::list"
    Then the result is:
      """
      {"skills": []}
      """

  @D7 @engine
  Scenario: D7 a non-empty uris wins; an empty uris falls back to uri
    Given the skills "alpha, beta" are registered
    When I call "skill::fetch" with:
      """
      {"uri": "iii://alpha", "uris": []}
      """
    Then the result text starts with "# iii://alpha\n\n"
    And the result text has 1 section
    When I call "skill::fetch" with:
      """
      {"uri": "iii://alpha", "uris": ["  iii://beta  ", "", " "]}
      """
    Then the result text starts with "# iii://beta\n\n"
    And the result text has 1 section
    When I call "skill::fetch" with:
      """
      {"uri": "iii://alpha", "uris": ["   "]}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Provide uri or a non-empty uris array"

  @D8 @engine
  Scenario: D8 every kind of failure carries its code and the bare reference text
    When I call "skills::register" with:
      """
      {"id": "Bad", "skill": "x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message does not contain "handler error"
    When I call "prompts::mcp-get" with:
      """
      {"name": "missing"}
      """
    Then the call fails with code "not_found"
    And the error message is "Prompt not found: missing"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/engine/functions/list"}
      """
    Then the call fails with code "forbidden"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/bdd/fail"}
      """
    Then the call fails with code "unavailable"
    And the error message starts with "trigger bdd::fail: "
    And the error message contains "bdd::fail always fails"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/bdd/no-such-function"}
      """
    Then the call fails with code "unavailable"
    And the error message starts with "trigger bdd::no-such-function: "

  @D8 @engine
  Scenario: D8 an upstream call that outlives state_timeout_ms is unavailable, naming the call
    Given the worker config has:
      """
      {"state_timeout_ms": 300}
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/bdd/slow"}
      """
    Then the call fails with code "unavailable"
    And the error message is "trigger bdd::slow: invocation timed out"
    When I call "prompts::register" with:
      """
      {"name": "slow", "description": "d", "function_id": "bdd::slow"}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "slow"}
      """
    Then the call fails with code "unavailable"
    And the error message is "trigger bdd::slow: invocation timed out"

  @D9 @engine @process
  Scenario: D9 with no --url the worker uses III_URL
    When I start the worker with:
      """
      {"args": ["--config", "{config}"], "env": {"III_URL": "{engine_url}"}}
      """
    Then the worker serves

  @D9 @engine @process
  Scenario: D9 with no --url and no III_URL the worker uses III_ENGINE_URL
    When I start the worker with:
      """
      {"args": ["--config", "{config}"], "env": {"III_ENGINE_URL": "{engine_url}"}}
      """
    Then the worker serves

  @D9 @engine @process
  Scenario: D9 III_URL wins over III_ENGINE_URL
    When I start the worker with:
      """
      {"args": ["--config", "{config}"], "env": {"III_URL": "{engine_url}", "III_ENGINE_URL": "{dead_url}"}}
      """
    Then the worker serves

  @D9 @engine @process
  Scenario: D9 --url wins over both variables
    When I start the worker with:
      """
      {"args": ["--url", "{engine_url}", "--config", "{config}"], "env": {"III_URL": "{dead_url}", "III_ENGINE_URL": "{dead_url}"}}
      """
    Then the worker serves
    When I call "skills::list"
    Then the call succeeds

  @D10 @engine
  Scenario: D10 base_dir overrides the config file's directory as the glob base
    Given the worker config has:
      """
      {"base_dir": "{dir}/content", "skills": ["skills/**/*.md"], "prompts": ["prompts/*.md"]}
      """
    And the file "content/skills/guide.md" contains:
      """
      # Guide
      """
    And the file "content/prompts/hello.md" contains:
      """
      ---
      description: Say hello
      ---
      Hello.
      """
    And the file "skills/not-here.md" contains:
      """
      # Relative to the config file, so not matched
      """
    When I call "skills::list"
    Then the result at "skills" has 1 item
    And the result contains:
      """
      {"skills": [{"id": "guide", "origin": "fs", "bytes": 7}]}
      """
    When I call "prompts::mcp-list"
    Then the result is:
      """
      {"prompts": [{"name": "hello", "description": "Say hello", "arguments": []}]}
      """

  @D10 @engine
  Scenario: D10 a relative base_dir resolves against the config file's directory
    Given the worker config has:
      """
      {"base_dir": "content", "skills": ["skills/**/*.md"]}
      """
    And the file "content/skills/guide.md" contains:
      """
      # Guide
      """
    When I call "skills::list"
    Then the result at "skills" has 1 item
    And the result at "skills.0.id" is "guide"

  @D11 @engine
  Scenario: D11 registered_at is RFC 3339 UTC with 9 fractional digits and +00:00
    When I call "skills::register" with:
      """
      {"id": "stamped", "skill": "# Stamped"}
      """
    Then the result at "registered_at" matches "^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$"
    When I call "skills::list"
    Then the result at "skills.0.registered_at" matches "^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$"
    When I call "prompts::register" with:
      """
      {"name": "stamped", "description": "d", "function_id": "bdd::prompt-string"}
      """
    Then the result at "registered_at" matches "^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$"
    When I call "prompts::list"
    Then the result at "prompts.0.registered_at" matches "^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$"

  @D12 @process
  Scenario: D12 every connection opens with metadata, trigger types, the functions, then the triggers
    The 13 functions of 0.2, the three skills::roots::* functions of the
    upstream v0.3 (docs/decisions.md D32), skill::search (D40), skills::diagnostics (D42),
    the MCP Skills extension's four skills::mcp-skills-* (D45), skills::history,
    skills::rollback and prompts::history (D83), prompts::rollback (D86), skills::usage (D84), the catalog's internal function
    that receives state events (D18; hidden from engine::functions::list by
    its metadata) and the internal function that follows the worker's replicas
    (D72), then one state binding per scope, and the replica function's bindings
    to engine::workers-available and engine::functions-available and its probe of
    each trigger type the worker provides.
    When I start the worker against a recording engine
    Then connection 1 opens with:
      | frame                                    | count |
      | invokefunction engine::workers::register | 1     |
      | registertriggertype                      | 2     |
      | registerfunction                         | 29    |
      | registertrigger                          | 6     |
    And frame 1 of connection 1 has:
      """
      {"type": "invokefunction", "function_id": "engine::workers::register", "action": {"type": "void"},
       "data": {"name": "skills", "runtime": "go",
                "description": "Agentic content registry worker. Hosts skills + prompts + the iii:// resource resolver that the mcp worker serves to harnesses."}}
      """
    And frame 1 of connection 1 has no "invocation_id"
    And frame 1 of connection 1 carries the worker's pid
    And connection 1 sends "registertriggertype" for:
      """
      skills::on-change
      prompts::on-change
      """
    And connection 1 sends "registerfunction" for:
      """
      skills::register skills::unregister skills::list
      skills::resources-list skills::resources-read skills::resources-templates
      skills::fetch_skill skill::fetch
      prompts::register prompts::unregister prompts::list prompts::mcp-list prompts::mcp-get
      skills::roots::index skills::roots::load skills::roots::rescan
      skill::search skills::diagnostics
      skills::mcp-skills-list skills::mcp-skills-get skills::mcp-skills-read skills::mcp-skills-dir
      skills::history skills::rollback prompts::history prompts::rollback skills::usage
      skills::catalog::state-* skills::replica::*
      """
    And connection 1 sends "registertrigger" for:
      """
      skills-catalog-*-skills-bdd-{uid} skills-catalog-*-prompts-bdd-{uid}
      skills-replica-*-workers skills-replica-*-functions
      skills-replica-*-probe-skills-on-change skills-replica-*-probe-prompts-on-change
      """
    When the recording engine drops connection 1
    Then connection 2 opens with:
      | frame                                    | count |
      | reattach                                 | 1     |
      | invokefunction engine::workers::register | 1     |
      | registertriggertype                      | 2     |
      | registerfunction                         | 29    |
      | registertrigger                          | 6     |
    And connection 2 reattaches as the worker of connection 1

  @D13 @process
  Scenario: D13 --manifest prints the registry manifest and exits without connecting
    When I run the binary with "--manifest"
    Then the binary exits with code 0
    And the binary made no connection
    And the keys at "" are, in order, "name, version, description, default_config, supported_targets"
    And the keys at "default_config" are, in order, "prompts, scopes, skills, state_timeout_ms"
    And the result at "version" matches "^0\.2\.\d+"
    And the result contains:
      """
      {"name": "skills",
       "description": "Agentic content registry worker. Hosts skills + prompts + the iii:// resource resolver that the mcp worker serves to harnesses.",
       "default_config": {"prompts": [], "scopes": {"prompts": "prompts", "skills": "skills"}, "skills": [], "state_timeout_ms": 10000},
       "supported_targets": ["{target}"]}
      """
    And the result at "supported_targets" has 1 item
    And the result at "default_config" is {"prompts": [], "scopes": {"prompts": "prompts", "skills": "skills"}, "skills": [], "state_timeout_ms": 10000}
    And the binary output starts with "{\n  \"name\": \"skills\",\n  \"version\": "

  @D13 @process
  Scenario: D13 --version prints the version and exits without connecting
    When I run the binary with "--version"
    Then the binary exits with code 0
    And the binary made no connection
    And the result text starts with "skills 0.2."

  @D14 @engine @process
  Scenario: D14 SIGINT shuts the worker down gracefully
    When I call "skills::list"
    And I send SIGINT to the worker
    Then the worker exits with code 0
    And the engine no longer lists the function "skills::register"
    And the engine no longer lists the function "skill::fetch"

  @D14 @engine @process
  Scenario: D14 SIGTERM shuts the worker down gracefully
    When I call "skills::list"
    And I send SIGTERM to the worker
    Then the worker exits with code 0
    And the engine no longer lists the function "skills::register"
    And the engine no longer lists the function "prompts::mcp-get"

  @D14 @engine @process
  Scenario: D14 a call in flight at SIGTERM still gets its answer
    When I start calling "skills::resources-read" with:
      """
      {"uri": "iii://fn/bdd/slow"}
      """
    And I send SIGTERM to the worker
    And the background call finishes
    Then the call succeeds
    And the result text contains "slow-section"
    And the worker exits with code 0

  @D15 @engine
  Scenario: D15 list-style functions ignore unknown keys and accept a null payload
    Given the skill "alpha" is registered
    When I call "skills::resources-list" with:
      """
      {"cursor": "opaque", "_meta": {"progressToken": 7}, "_caller_worker_id": "someone-else"}
      """
    Then the result at "resources" has 2 items
    When I call "skills::resources-list" with:
      """
      null
      """
    Then the result at "resources" has 2 items
    When I call "skills::resources-templates" with:
      """
      null
      """
    Then the result at "resourceTemplates" has 2 items
    When I call "skills::list" with:
      """
      null
      """
    Then the result at "skills.0.id" is "alpha"
    When I call "prompts::list" with:
      """
      null
      """
    Then the result is {"prompts": []}
    When I call "prompts::mcp-list" with:
      """
      {"cursor": "next", "_meta": {}}
      """
    Then the result is {"prompts": []}

  @D15 @engine
  Scenario: D15 mcp-get treats absent or null arguments as {} and ignores unknown keys
    When I call "prompts::register" with:
      """
      {"name": "echo", "description": "Echoes its arguments", "function_id": "bdd::prompt-echo", "tools": ["ignored"]}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "echo", "arguments": null, "_meta": {"progressToken": 1}}
      """
    Then the result at "messages.0.content.text" is "args={}"
    When I call "prompts::mcp-get" with:
      """
      {"name": "echo"}
      """
    Then the result at "messages.0.content.text" is "args={}"
    When I call "prompts::mcp-get" with:
      """
      {"name": "echo", "arguments": {"to": "bob"}}
      """
    Then the result at "messages.0.content.text" is "args={\"to\":\"bob\"}"

  @D15 @engine
  Scenario: D15 register ignores unknown keys such as the v0.2.1 tools array
    When I call "skills::register" with:
      """
      {"id": "tooled", "skill": "# Tooled", "tools": [{"name": "tooled::x"}], "_caller_worker_id": "w"}
      """
    Then the call succeeds
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://tooled", "_meta": {}}
      """
    Then the result text is:
      """
      # Tooled
      """

  @D16 @engine
  Scenario: D16 skill::fetch (and, since D40, skill::search) is registered with tool and mcp expose metadata
    When I call "skills::list"
    And I call "engine::functions::list" with:
      """
      {"prefix": "skill::"}
      """
    Then the result at "functions" has 2 items
    And the result at "functions.0.function_id" is "skill::fetch"
    And the result at "functions.0.metadata" is {"tool": {"label": "Fetch skill"}, "mcp": {"expose": true}, "mcp.expose": true}
    And the result at "functions.1.function_id" is "skill::search"
    And the result at "functions.1.metadata" is {"tool": {"label": "Search skills"}, "mcp": {"expose": true}, "mcp.expose": true}
    When I call "engine::functions::list" with:
      """
      {"prefix": "skills::fetch_skill"}
      """
    Then the result at "functions" has 1 item
    And the result has no "functions.0.metadata"
