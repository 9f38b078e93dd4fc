@engine @bad_input
Feature: Bad input and misbehaving neighbours
  Malformed payloads fail with invalid_argument and a message naming the
  offending field or value, and leave state unchanged (each scenario lists
  afterwards to prove it). A failing or slow upstream function never holds
  up other calls.

  Scenario Outline: skills::register refuses a malformed payload: <case>
    When I call "skills::register" with:
      """
      <payload>
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "<message>"
    When I call "skills::list"
    Then the result is {"skills": []}
    And no "skills::on-change" event arrives before a marker change

    Examples:
      | case               | payload                          | message                                    |
      | id of wrong type   | {"id": ["a"], "skill": "x"}      | field "id" must be a string, got array     |
      | body of wrong type | {"id": "a", "skill": 5}          | field "skill" must be a string, got number |
      | a string payload   | "just a string"                  | must be a JSON object, got string          |
      | an array payload   | [{"id": "a", "skill": "x"}]      | must be a JSON object, got array           |
      | a null payload     | null                             | id must be non-empty                       |
      | no id              | {"skill": "x"}                   | id must be non-empty                       |
      | a null id          | {"id": null, "skill": "x"}       | id must be non-empty                       |
      | no body            | {"id": "a"}                      | skill must be non-empty                    |
      | a 262,145-byte body | {"id": "a", "skill": "{big:262145}"} | skill body too large (262145 bytes; max 262144) |

  Scenario Outline: a bad skill id is refused with the offending value: <case>
    When I call "skills::register" with:
      """
      {"id": "<id>", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "<message>"
    When I call "skills::unregister" with:
      """
      {"id": "<id>"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "<message>"
    When I call "skills::list"
    Then the result is {"skills": []}

    Examples:
      | case            | id          | message                                                                                                                 |
      | uppercase       | Upper       | invalid id (segment 1 of "Upper"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "Upper"         |
      | unicode         | café        | invalid id (segment 1 of "café"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "café"           |
      | a function id   | a/w::fn     | invalid id (segment 2 of "a/w::fn"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "w::fn"      |
      | dot-dot         | a/../b      | invalid id (segment 2 of "a/../b"): segment may only contain lowercase ASCII letters, digits, '-' and '_': ".."         |
      | leading slash   | /a          | id may not have a leading or trailing '/': "/a"                                                                           |
      | doubled slash   | a//b        | invalid id (segment 2 of "a//b"): segment must be non-empty                                                               |
      | a tab           | a\tb        | invalid id (segment 1 of "a\tb"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "a\tb"           |
      | reserved fn     | fn/x        | id may not have "fn" as its first segment (reserved as the iii://fn/ section-URI marker): "fn/x"                          |
      | 1025 bytes      | {big:1025}  | id too long (1025 chars; max 1024): "{big:200}"… (1025 bytes)                                                            |

  Scenario Outline: prompts::register refuses a malformed payload: <case>
    When I call "prompts::register" with:
      """
      <payload>
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "<message>"
    When I call "prompts::list"
    Then the result is {"prompts": []}
    And no "prompts::on-change" event arrives before a marker change

    Examples:
      | case                      | payload                                                                                                | message                                                                  |
      | uppercase name            | {"name": "Send", "description": "d", "function_id": "f"}                                               | name may only contain lowercase ASCII letters, digits, '-' and '_': "Send" |
      | name with a slash         | {"name": "a/b", "description": "d", "function_id": "f"}                                                | "a/b"                                                                    |
      | 65-byte name              | {"name": "{big:65}", "description": "d", "function_id": "f"}                                           | name too long (65 chars; max 64)                                         |
      | arguments not an array    | {"name": "p", "description": "d", "function_id": "f", "arguments": "to"}                               | field "arguments" must be an array, got string                           |
      | required not a boolean    | {"name": "p", "description": "d", "function_id": "f", "arguments": [{"name": "to", "required": "yes"}]} | must be a boolean, got string                                            |
      | duplicate arguments       | {"name": "p", "description": "d", "function_id": "f", "arguments": [{"name": "to"}, {"name": "to"}]}   | duplicate argument name: to                                              |
      | blank argument name       | {"name": "p", "description": "d", "function_id": "f", "arguments": [{"name": "to"}, {"name": ""}]}     | argument name must be non-empty                                          |
      | null payload              | null                                                                                                   | name must be non-empty                                                   |
      | description of wrong type | {"name": "p", "description": 1, "function_id": "f"}                                                    | field "description" must be a string, got number                         |

  Scenario: fetch refuses URIs of the wrong type, naming the field
    When I call "skill::fetch" with:
      """
      {"uris": "iii://skills"}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "field "uris" must be an array of strings, got string"
    When I call "skill::fetch" with:
      """
      {"uri": 5}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "field "uri" must be a string, got number"

  Scenario: resources-read without a uri says the uri is missing
    When I call "skills::resources-read" with:
      """
      {}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "uri"

  Scenario: rows the worker cannot decode are skipped in lists and reported on read
    Given the skills scope holds the row "broken":
      """
      {"id": "broken", "skill": 42, "registered_at": "2026-01-01T00:00:00+00:00"}
      """
    And the skill "fine" is registered
    When I call "skills::list"
    Then the result at "skills" has 1 item
    And the result at "skills.0.id" is "fine"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://broken"}
      """
    Then the call fails with code "unavailable"
    And the error message starts with "decode stored skill broken: "

  Scenario: a failing prompt handler fails only its own call
    When I call "prompts::register" with:
      """
      {"name": "broken", "description": "d", "function_id": "bdd::fail"}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "broken"}
      """
    Then the call fails with code "unavailable"
    And the error message starts with "trigger bdd::fail: "
    And the error message contains "bdd::fail always fails"
    When I call "prompts::mcp-list"
    Then the result at "prompts.0.name" is "broken"

  Scenario: a slow section read does not hold up other calls
    Given the skill "alpha" is registered
    When I start calling "skills::resources-read" with:
      """
      {"uri": "iii://fn/bdd/slow"}
      """
    And I call "skills::list"
    Then the result at "skills.0.id" is "alpha"
    When I call "skill::fetch" with:
      """
      {"uri": "iii://alpha"}
      """
    Then the call succeeds
    And the background call is still running
    When the background call finishes
    Then the call succeeds
    And the result text contains "slow-section"

  Scenario: a slow prompt handler does not hold up other prompts
    When I call "prompts::register" with:
      """
      {"name": "slow", "description": "d", "function_id": "bdd::slow"}
      """
    And I call "prompts::register" with:
      """
      {"name": "quick", "description": "d", "function_id": "bdd::prompt-string"}
      """
    And I start calling "prompts::mcp-get" with:
      """
      {"name": "slow"}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "quick"}
      """
    Then the result at "messages.0.content.text" is "str body"
    And the background call is still running
    When the background call finishes
    Then the result at "messages.0.content.text" is "# Slow\n\nslow-section body.\n"

  @D78
  Scenario Outline: a read refuses a malformed after before reading anything: <function>, <case>
    When I call "<function>" with:
      """
      <payload>
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "<message>"

    Examples:
      | function               | case            | payload                                           | message                                                                                      |
      | skills::list           | a number        | {"after": 5}                                      | `after` must be a version string from a write's reply, or a list of at most 64 of them; got 5 |
      | skills::resources-read | not a token     | {"uri": "iii://skills", "after": "hello"}         | version "hello" is not one this worker issued (it does not start with "v1.")                 |
      | skill::fetch           | a list of lists | {"uri": "iii://x", "after": [["v1.a.b.-"]]}       | `after` must be a version string                                                             |
      | skill::search          | another scope   | {"query": "x", "after": "v1.ZWxzZXdoZXJl.YQ.-"}   | is for the state scope "elsewhere", which this worker does not serve                          |
      | prompts::list          | bad fingerprint | {"after": "v1.cHJvbXB0cw.YQ.YWJj"}                | (its fingerprint is not a base64url SHA-256)                                                  |
