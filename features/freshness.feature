@engine @catalog @freshness
Feature: Fresh from the engine
  The worker serves from memory, and what it serves follows the engine's
  state (docs/decisions.md D18, D23): a write by another worker on the same
  scope (another replica, or the 0.2 Rust worker) is served within one state
  event; a write through another engine sharing the store, which sends this
  one no state event, within reconcile_ms (D73); after an outage the worker
  loads everything again; an engine that cannot report state changes gets
  every state read asked of it, as 0.2 did.

  Scenario: a skill another worker writes, rewrites and deletes is followed within one state event
    Given the skill "mine" is registered with body:
      """
      # Mine

      Registered through this worker.
      """
    When the skills scope holds the row "theirs":
      """
      {"id": "theirs", "skill": "# Theirs\n\nWritten by another worker.", "registered_at": "2026-11-23T00:00:00.000000000+00:00"}
      """
    Then within 2000 ms, reading "iii://theirs" gives:
      """
      # Theirs

      Written by another worker.
      """
    When I call "skills::list"
    Then the result at "skills" has 2 items
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text has the line "- [`theirs`](iii://theirs) — Theirs — Written by another worker."
    When the skills scope holds the row "theirs":
      """
      {"id": "theirs", "skill": "# Theirs\n\nRewritten by another worker.", "registered_at": "2026-11-23T00:00:01.000000000+00:00"}
      """
    Then within 2000 ms, reading "iii://theirs" gives:
      """
      # Theirs

      Rewritten by another worker.
      """
    When the skills scope loses the row "theirs"
    Then within 2000 ms, reading "iii://theirs" fails with code "not_found"
    When I call "skills::list"
    Then the result at "skills" has 1 item

  Scenario: a skill written and deleted through another engine, with no state event here, is served within reconcile_ms and announced once
    Given the worker config has:
      """
      {"reconcile_ms": 200}
      """
    And the skill "mine" is registered
    Then 1 "skills::on-change" event arrives within 3000 ms
    When through another engine, the skills scope gets the row "theirs":
      """
      {"id": "theirs", "skill": "# Theirs\n\nWritten through engine B.", "registered_at": "2026-11-23T00:00:00.000000000+00:00"}
      """
    Then within 2000 ms, reading "iii://theirs" gives:
      """
      # Theirs

      Written through engine B.
      """
    And 2 "skills::on-change" events arrive within 3000 ms
    When through another engine, the skills scope loses the row "theirs"
    Then within 2000 ms, reading "iii://theirs" fails with code "not_found"
    And the "skills::on-change" events are:
      """
      [{"op": "register", "id": "mine"}, {"op": "register", "id": "theirs"}, {"op": "unregister", "id": "theirs"}]
      """
    When I call "skills::diagnostics"
    Then the result contains:
      """
      {"catalog": {"mode": "live", "freshness": {"reconcile_ms": 200, "changes_by_reconcile": 2, "signal": "none", "changes_by_signal": 0}}}
      """

  Scenario: a row another worker writes that does not decode leaves the skill as it was, and says so once
    Given the skill "shaky" is registered with body:
      """
      # Shaky

      The last good body.
      """
    When the skills scope holds the row "shaky":
      """
      {"id": "shaky", "skill": 42, "registered_at": "2026-11-23T00:00:00.000000000+00:00"}
      """
    Then the worker output contains "a changed value does not decode; the entry is kept as it was"
    And the worker output contains "\"key\": \"shaky\", \"reason\": \"invalid type for field `skill`: number, expected string\""
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://shaky"}
      """
    Then the result text is:
      """
      # Shaky

      The last good body.
      """

  Scenario: after the engine comes back, what changed while it was down is served and what was deleted is not
    Given the scenario runs its own local engine
    And the skill "kept" is registered with body:
      """
      # Kept

      Before the outage.
      """
    And the skill "dropped" is registered with body:
      """
      # Dropped

      Deleted during the outage.
      """
    When I call "skill::fetch" with:
      """
      {"uris": ["iii://kept", "iii://dropped"]}
      """
    Then the result text contains "Deleted during the outage."
    When the engine goes down
    And while the engine is down, the skills scope loses the row "dropped"
    And while the engine is down, the skills scope gets the row "kept":
      """
      {"id": "kept", "skill": "# Kept\n\nChanged during the outage.", "registered_at": "2026-11-23T00:00:00.000000000+00:00"}
      """
    And while the engine is down, the skills scope gets the row "added":
      """
      {"id": "added", "skill": "# Added\n\nWritten during the outage.", "registered_at": "2026-11-23T00:00:00.000000000+00:00"}
      """
    And the engine comes back
    And I call "skills::resources-read" with:
      """
      {"uri": "iii://dropped"}
      """
    Then the call fails with code "not_found"
    When I call "skill::fetch" with:
      """
      {"uris": ["iii://kept", "iii://added"]}
      """
    Then the result text contains "Changed during the outage."
    And the result text contains "Written during the outage."
    When I call "skills::list"
    Then the result at "skills" has 2 items

  Scenario: an engine without the state trigger type gets every state read, so nothing served is stale
    Given the scenario runs its own local engine, without the state trigger type
    And the skill "mine" is registered with body:
      """
      # Mine

      First body.
      """
    Then the worker output contains "cannot follow state changes; every state read goes to the engine"
    When the skills scope holds the row "mine":
      """
      {"id": "mine", "skill": "# Mine\n\nChanged by another worker.", "registered_at": "2026-11-23T00:00:00.000000000+00:00"}
      """
    And I call "skills::resources-read" with:
      """
      {"uri": "iii://mine"}
      """
    Then the result text is:
      """
      # Mine

      Changed by another worker.
      """
    When the skills scope holds the row "theirs":
      """
      {"id": "theirs", "skill": "# Theirs\n\nWritten by another worker.", "registered_at": "2026-11-23T00:00:00.000000000+00:00"}
      """
    And I call "skills::list"
    Then the result at "skills" has 2 items
    When the skills scope loses the row "mine"
    And I call "skills::resources-read" with:
      """
      {"uri": "iii://mine"}
      """
    Then the call fails with code "not_found"
