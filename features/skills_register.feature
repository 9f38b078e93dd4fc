@engine @skills_register
Feature: Registering skills
  skills::register stores a markdown body under a slash-separated id; the
  id and the body are validated first, with the reference worker's texts.

  Scenario: register rejects an empty id
    When I call "skills::register" with:
      """
      {"id": "", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "id must be non-empty"

  Scenario: register rejects an uppercase id
    When I call "skills::register" with:
      """
      {"id": "Bad-Id", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "invalid id (segment 1 of "Bad-Id"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "Bad-Id""

  Scenario: register rejects an id with a space
    When I call "skills::register" with:
      """
      {"id": "has space", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "invalid id (segment 1 of "has space"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "has space""

  Scenario: register rejects an id with a leading slash
    When I call "skills::register" with:
      """
      {"id": "/lead", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "id may not have a leading or trailing '/': "/lead""

  Scenario: register rejects an id with a trailing slash
    When I call "skills::register" with:
      """
      {"id": "trail/", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "id may not have a leading or trailing '/': "trail/""

  Scenario: register rejects an id with a doubled slash
    When I call "skills::register" with:
      """
      {"id": "doubled//slash", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "invalid id (segment 2 of "doubled//slash"): segment must be non-empty"

  Scenario: register rejects an id with a colon
    When I call "skills::register" with:
      """
      {"id": "with::colon", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "invalid id (segment 1 of "with::colon"): segment may only contain lowercase ASCII letters, digits, '-' and '_': "with::colon""

  Scenario: register rejects a 65-char id
    When I call "skills::register" with:
      """
      {"id": "{big:65}", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "invalid id (segment 1 of "{big:65}"): segment too long (65 chars; max 64): "{big:65}""

  Scenario: register rejects an empty body
    When I call "skills::register" with:
      """
      {"id": "empty", "skill": ""}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "skill must be non-empty"

  Scenario: register rejects a body bigger than 256 KiB
    When I call "skills::register" with:
      """
      {"id": "huge", "skill": "{big:262145}"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "skill body too large (262145 bytes; max 262144)"

  Scenario: register accepts a body right at 256 KiB
    When I call "skills::register" with:
      """
      {"id": "exact", "skill": "{big:262144}"}
      """
    Then the call succeeds
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://exact"}
      """
    Then the result text has 262144 characters

  Scenario: register then list shows the scoped skill
    Given the skills "zeta, alpha, mid" are registered
    When I call "skills::list"
    Then the result at "skills" has 3 items
    And the result contains:
      """
      {"skills": [
        {"id": "alpha", "bytes": 24, "origin": "state"},
        {"id": "mid", "bytes": 20, "origin": "state"},
        {"id": "zeta", "bytes": 22, "origin": "state"}
      ]}
      """
    And every item at "skills" has:
      """
      {"bytes": "number", "registered_at": "string", "origin": "string", "skill": "absent"}
      """
    And the items at "skills" are sorted by "id"

  Scenario: re-register overwrites the body and refreshes the timestamp
    When I call "skills::register" with:
      """
      {"id": "again", "skill": "# First body"}
      """
    Then the call succeeds
    And I remember the result at "registered_at" as "first"
    When I call "skills::register" with:
      """
      {"id": "again", "skill": "# Second body"}
      """
    Then the call succeeds
    And the result at "id" is "again"
    And the result at "registered_at" is not {{first}}
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://again"}
      """
    Then the result text is:
      """
      # Second body
      """

  Scenario: unregister is idempotent
    Given the skill "gone" is registered
    When I call "skills::unregister" with:
      """
      {"id": "gone"}
      """
    Then the result is:
      """
      {"id": "gone", "removed": true}
      """
    When I call "skills::unregister" with:
      """
      {"id": "gone"}
      """
    Then the result is:
      """
      {"id": "gone", "removed": false}
      """
    When I call "skills::list"
    Then the result is:
      """
      {"skills": []}
      """

  @D78
  Scenario: a write asked for its version answers with it, and a read after it has the write
    When I call "skills::register" with:
      """
      {"id": "versioned", "skill": "# Versioned\n\nFirst.", "version": true}
      """
    Then the result at "version" matches "^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$"
    And I remember the result at "version" as "written"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://versioned", "after": {{written}}}
      """
    Then the result at "contents.0.text" is "# Versioned\n\nFirst."
    When I call "skills::unregister" with:
      """
      {"id": "versioned", "version": true}
      """
    Then the result at "version" matches "^v1\..*\.-$"
    And I remember the result at "version" as "gone"
    When I call "skills::list" with:
      """
      {"after": [{{written}}, {{gone}}]}
      """
    Then the result is {"skills": []}
    When I call "prompts::register" with:
      """
      {"name": "versioned", "description": "A prompt", "function_id": "bdd::prompt-string", "version": true}
      """
    Then the result at "version" matches "^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$"
    And I remember the result at "version" as "prompt"
    When I call "prompts::list" with:
      """
      {"after": {{prompt}}}
      """
    Then the result at "prompts" has 1 item
    When I call "prompts::mcp-get" with:
      """
      {"name": "versioned", "after": [{{prompt}}, {{gone}}]}
      """
    Then the call succeeds
    When I call "skills::register" with:
      """
      {"id": "unasked", "skill": "# Unasked"}
      """
    Then the result has no "version"
