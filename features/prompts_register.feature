@engine @prompts_register
Feature: Registering prompts
  prompts::register stores a slash-command prompt: a flat name, a
  description for the client's picker, the function that renders it and
  its declared arguments.

  Scenario: register rejects an empty name
    When I call "prompts::register" with:
      """
      {"name": "", "description": "d", "function_id": "bdd::prompt-string"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "name must be non-empty"

  Scenario: register rejects an uppercase name
    When I call "prompts::register" with:
      """
      {"name": "SendEmail", "description": "d", "function_id": "bdd::prompt-string"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "name may only contain lowercase ASCII letters, digits, '-' and '_': "SendEmail""

  Scenario: register rejects a name with a space
    When I call "prompts::register" with:
      """
      {"name": "send email", "description": "d", "function_id": "bdd::prompt-string"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "name may only contain lowercase ASCII letters, digits, '-' and '_': "send email""

  Scenario: register rejects a name with :: like a function id
    When I call "prompts::register" with:
      """
      {"name": "mcp::send", "description": "d", "function_id": "bdd::prompt-string"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "name may only contain lowercase ASCII letters, digits, '-' and '_': "mcp::send""

  Scenario: register rejects a blank description
    When I call "prompts::register" with:
      """
      {"name": "p", "description": "   ", "function_id": "bdd::prompt-string"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "description must be non-empty"

  Scenario: register rejects a missing function_id
    When I call "prompts::register" with:
      """
      {"name": "p", "description": "d", "function_id": ""}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "function_id must be non-empty"
    When I call "prompts::register" with:
      """
      {"name": "p", "description": "d"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "function_id must be non-empty"

  Scenario: register rejects duplicate argument names
    When I call "prompts::register" with:
      """
      {"name": "p", "description": "d", "function_id": "bdd::prompt-string",
       "arguments": [{"name": "to"}, {"name": "subject"}, {"name": "to", "required": true}]}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "duplicate argument name: to"

  Scenario: register rejects an empty argument name
    When I call "prompts::register" with:
      """
      {"name": "p", "description": "d", "function_id": "bdd::prompt-string", "arguments": [{"name": "  "}]}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "argument name must be non-empty"

  Scenario: register then list surfaces the scoped prompt
    When I call "prompts::register" with:
      """
      {"name": "zeta", "description": "Last prompt", "function_id": "bdd::prompt-string"}
      """
    Then the call succeeds
    When I call "prompts::register" with:
      """
      {"name": "alpha", "description": "First prompt", "function_id": "bdd::prompt-echo",
       "arguments": [{"name": "to", "description": "Recipient", "required": true}, {"name": "cc"}]}
      """
    Then the call succeeds
    And the result at "name" is "alpha"
    When I call "prompts::list"
    Then the result at "prompts" has 2 items
    And the result contains:
      """
      {"prompts": [
        {"name": "alpha", "function_id": "bdd::prompt-echo", "arguments": 2, "origin": "state"},
        {"name": "zeta", "function_id": "bdd::prompt-string", "arguments": 0, "origin": "state"}
      ]}
      """
    And every item at "prompts" has:
      """
      {"arguments": "number", "function_id": "string", "registered_at": "string", "description": "absent"}
      """
    And the items at "prompts" are sorted by "name"

  Scenario: an argument's declared values are listed on that argument only
    When I call "prompts::register" with:
      """
      {"name": "label", "description": "Label an issue", "function_id": "bdd::prompt-echo",
       "arguments": [{"name": "issue", "required": true}, {"name": "kind", "values": ["bug", "feature", "docs"]}]}
      """
    Then the call succeeds
    When I call "prompts::mcp-list"
    Then the result is:
      """
      {"prompts": [{"name": "label", "description": "Label an issue", "arguments": [
        {"name": "issue", "required": true},
        {"name": "kind", "required": false, "values": ["bug", "feature", "docs"]}
      ]}]}
      """
    When I call "prompts::list"
    Then the result at "prompts" has 1 item
    And the result contains:
      """
      {"prompts": [{"name": "label", "arguments": 2, "origin": "state"}]}
      """

  Scenario: register rejects a value declared twice
    When I call "prompts::register" with:
      """
      {"name": "p", "description": "d", "function_id": "bdd::prompt-string",
       "arguments": [{"name": "kind", "values": ["bug", "docs", "bug"]}]}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "argument "kind": duplicate value "bug"; each value may be declared once"

  Scenario: re-register overwrites and refreshes the timestamp
    When I call "prompts::register" with:
      """
      {"name": "again", "description": "First", "function_id": "bdd::prompt-string"}
      """
    And I remember the result at "registered_at" as "first"
    And I call "prompts::register" with:
      """
      {"name": "again", "description": "Second", "function_id": "bdd::prompt-content"}
      """
    Then the result at "registered_at" is not {{first}}
    When I call "prompts::mcp-list"
    Then the result is:
      """
      {"prompts": [{"name": "again", "description": "Second", "arguments": []}]}
      """

  Scenario: unregister is idempotent
    When I call "prompts::register" with:
      """
      {"name": "gone", "description": "d", "function_id": "bdd::prompt-string"}
      """
    And I call "prompts::unregister" with:
      """
      {"name": "gone"}
      """
    Then the result is:
      """
      {"name": "gone", "removed": true}
      """
    When I call "prompts::unregister" with:
      """
      {"name": "gone"}
      """
    Then the result is:
      """
      {"name": "gone", "removed": false}
      """
    When I call "prompts::list"
    Then the result is:
      """
      {"prompts": []}
      """
