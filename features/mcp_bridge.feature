@engine @mcp_bridge
Feature: The calls the mcp worker makes
  The mcp worker answers resources/* and prompts/* by calling these
  functions and forwarding their results verbatim.

  Background:
    Given the skill "bridge" is registered with body:
      """
      # Bridge

      Seeded for the bridge.
      """
    And I call "prompts::register" with:
      """
      {"name": "send-email", "description": "Compose and send an email", "function_id": "bdd::prompt-echo",
       "arguments": [{"name": "to", "description": "Recipient address", "required": true}]}
      """

  Scenario: skills::resources-list returns the MCP resources/list envelope
    When I call "skills::resources-list" with:
      """
      {}
      """
    Then the result contains:
      """
      {"resources": [
        {"uri": "iii://skills", "name": "skills", "mimeType": "text/markdown"},
        {"uri": "iii://bridge", "name": "Bridge", "mimeType": "text/markdown"}
      ]}
      """

  Scenario: skills::resources-read round-trips a registered skill body
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://bridge"}
      """
    Then the result is:
      """
      {"contents": [{"uri": "iii://bridge", "mimeType": "text/markdown", "text": "# Bridge\n\nSeeded for the bridge."}]}
      """

  Scenario: prompts::mcp-list returns the MCP-shaped arguments array
    When I call "prompts::mcp-list" with:
      """
      {}
      """
    Then the result is:
      """
      {"prompts": [{"name": "send-email", "description": "Compose and send an email",
                    "arguments": [{"name": "to", "description": "Recipient address", "required": true}]}]}
      """

  Scenario: prompts::mcp-get dispatches the handler and returns the MCP messages shape
    When I call "prompts::mcp-get" with:
      """
      {"name": "send-email", "arguments": {"to": "alice@example.com"}}
      """
    Then the result is:
      """
      {"description": "Compose and send an email",
       "messages": [{"role": "user", "content": {"type": "text", "text": "args={\"to\":\"alice@example.com\"}"}}]}
      """
