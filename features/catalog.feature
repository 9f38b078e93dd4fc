@engine @catalog
Feature: The catalog
  The worker keeps a summary of every skill and prompt in memory, and skill
  bodies within cache_bytes (docs/decisions.md D17): reads and listings
  answer from memory, and a body not kept is read from the engine.

  Scenario: with no body cache every read is still answered, from the engine
    Given the worker config has:
      """
      {"cache_bytes": 0}
      """
    And the skill "alpha" is registered with body:
      """
      # Alpha

      First body.
      """
    And the skill "beta" is registered with body:
      """
      # Beta

      Second body.
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://alpha"}
      """
    Then the result text is:
      """
      # Alpha

      First body.
      """
    When I call "skill::fetch" with:
      """
      {"uris": ["iii://beta", "iii://alpha"]}
      """
    Then the result text has 2 sections
    And the result text contains "Second body."
    When I call "skills::list"
    Then the result at "skills" has 2 items

  Scenario: with a cache smaller than the bodies, reads stay correct as bodies are evicted
    Given the worker config has:
      """
      {"cache_bytes": 40}
      """
    And the skill "one" is registered with body:
      """
      # One

      The first body, thirty-odd bytes.
      """
    And the skill "two" is registered with body:
      """
      # Two

      The second body, thirty-odd bytes.
      """
    When I call "skill::fetch" with:
      """
      {"uris": ["iii://one", "iii://two", "iii://one", "iii://two"]}
      """
    Then the result text has 4 sections
    And the result text contains "The first body, thirty-odd bytes."
    And the result text contains "The second body, thirty-odd bytes."
    When I call "skills::unregister" with:
      """
      {"id": "one"}
      """
    And I call "skills::resources-read" with:
      """
      {"uri": "iii://one"}
      """
    Then the call fails with code "not_found"
