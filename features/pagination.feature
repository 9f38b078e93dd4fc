@engine @pagination
Feature: Pages of resources and prompts
  With page_size set (docs/decisions.md D43), skills::resources-list and
  prompts::mcp-list answer a page at a time with a nextCursor, as MCP clients
  ask for them; without it (the default) everything comes at once, as in 0.2.

  Scenario: resources-list pages through every entry with nextCursor
    Given the worker config has:
      """
      {"page_size": 2}
      """
    And the skills "alpha, beta, gamma" are registered
    When I call "skills::resources-list"
    Then the result at "resources" has 2 items
    And the result at "resources.0.uri" is "iii://skills"
    And the result at "resources.1.uri" is "iii://alpha"
    And I remember the result at "nextCursor" as "next"
    When I call "skills::resources-list" with:
      """
      {"cursor": {{next}}}
      """
    Then the result at "resources" has 2 items
    And the result at "resources.0.uri" is "iii://beta"
    And the result at "resources.1.uri" is "iii://gamma"
    And the result has no "nextCursor"

  Scenario: a cursor that is garbage, stale or from the other list is invalid_argument
    Given the worker config has:
      """
      {"page_size": 1}
      """
    And the skills "alpha, beta" are registered
    When I call "skills::resources-list" with:
      """
      {"cursor": "not-a-cursor"}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "is not one this worker gave out; pass the nextCursor of the previous page, or no cursor for the first page"
    When I call "prompts::register" with:
      """
      {"name": "one", "description": "First", "function_id": "bdd::prompt-string"}
      """
    And I call "prompts::register" with:
      """
      {"name": "two", "description": "Second", "function_id": "bdd::prompt-string"}
      """
    And I call "prompts::mcp-list"
    Then the result at "prompts.0.name" is "one"
    And I remember the result at "nextCursor" as "prompts"
    When I call "skills::resources-list" with:
      """
      {"cursor": {{prompts}}}
      """
    Then the error message contains "cursor is for the prompts list, not the resources list"
    When I call "prompts::unregister" with:
      """
      {"name": "one"}
      """
    And I call "prompts::mcp-list" with:
      """
      {"cursor": {{prompts}}}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "stale cursor"

  Scenario: without page_size everything comes at once and a cursor is ignored, as in 0.2
    Given the skills "alpha, beta" are registered
    When I call "skills::resources-list" with:
      """
      {"cursor": "anything"}
      """
    Then the result at "resources" has 3 items
    And the result has no "nextCursor"
