@engine @prompts_get
Feature: Rendering prompts
  prompts::mcp-get triggers the prompt's handler with the caller's
  arguments and normalises what it returns into MCP prompt messages.

  Scenario: a string handler is wrapped as a single user message
    When I call "prompts::register" with:
      """
      {"name": "str", "description": "bdd prompt", "function_id": "bdd::prompt-string"}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "str"}
      """
    Then the result is:
      """
      {"description": "bdd prompt", "messages": [{"role": "user", "content": {"type": "text", "text": "str body"}}]}
      """

  Scenario: a {content} handler is wrapped as a single user message
    When I call "prompts::register" with:
      """
      {"name": "obj", "description": "bdd prompt", "function_id": "bdd::prompt-content"}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "obj"}
      """
    Then the result is:
      """
      {"description": "bdd prompt", "messages": [{"role": "user", "content": {"type": "text", "text": "obj body"}}]}
      """

  Scenario: a {messages: [...]} handler is passed through unchanged
    When I call "prompts::register" with:
      """
      {"name": "msgs", "description": "bdd prompt", "function_id": "bdd::prompt-messages"}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "msgs"}
      """
    Then the result is:
      """
      {"description": "bdd prompt", "messages": [
        {"role": "user", "content": {"type": "text", "text": "m1"}},
        {"role": "assistant", "content": {"type": "text", "text": "m2"}}
      ]}
      """

  Scenario: a handler returning an unsupported shape fails the call
    When I call "prompts::register" with:
      """
      {"name": "odd", "description": "bdd prompt", "function_id": "bdd::prompt-unsupported"}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "odd"}
      """
    Then the call fails with code "unavailable"
    And the error message is "prompt handler returned unsupported shape; expected string, { content }, or { messages: [...] }"

  Scenario: calling mcp-get on an unknown prompt returns a not-found error
    When I call "prompts::mcp-get" with:
      """
      {"name": "no-such-prompt"}
      """
    Then the call fails with code "not_found"
    And the error message is "Prompt not found: no-such-prompt"

  Scenario: a prompt pointing at an infra-namespace handler is rejected by the hard floor
    When I call "prompts::register" with:
      """
      {"name": "sneaky", "description": "bdd prompt", "function_id": "state::set"}
      """
    Then the call succeeds
    When I call "prompts::mcp-get" with:
      """
      {"name": "sneaky", "arguments": {"scope": "x", "key": "y", "value": 1}}
      """
    Then the call fails with code "forbidden"
    And the error message is "Prompt handler 'state::set' is in an internal namespace and cannot back a prompt"
