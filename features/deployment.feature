@engine @deployment
Feature: Runs where iii runs today
  One binary for both generations of iii (docs/deployment.md): started by
  iii compose (0.23) with no arguments and its settings in the environment,
  registered in a project's namespace, waiting for a state worker that
  comes late (0.24), and following its entry in the engine's configuration
  worker (docs/decisions.md D55-D59).

  @compose
  Scenario: started as iii compose starts it, the worker reads $III_CONFIG and resolves its globs against the working directory
    Given the file "fs-skills/alpha.md" contains:
      """
      # Alpha

      Served from the working directory.
      """
    And the file "fs-skills/team/beta.md" contains:
      """
      # Beta
      """
    When the worker is started as iii compose starts it
    And I call "skills::list"
    Then the result contains:
      """
      {"skills": [{"id": "alpha", "origin": "fs"}, {"id": "team/beta", "origin": "fs"}]}
      """
    And the result at "skills" has 2 items
    And the worker output contains "loaded config from {compose_config} (named by $III_CONFIG)"
    And the worker output contains "\"glob_base\": \"{dir}\""
    And the worker output contains "\"skills\": [\"{dir}/fs-skills/**/*.md\"]"

  @compose
  Scenario: a missing $III_CONFIG file is a warning naming it, and the worker boots with the defaults
    Given the scenario runs its own local engine
    And the file "fs-skills/alpha.md" contains:
      """
      # Alpha
      """
    And the file "config.yaml" contains:
      """
      skills: ["fs-skills/**/*.md"]
      """
    When the worker is started as iii compose starts it, with III_CONFIG naming "compose/missing.yaml"
    Then the worker output contains "failed to load config named by $III_CONFIG, using defaults"
    And the worker output contains "\"path\": \"{dir}/compose/missing.yaml\""
    When I call "skills::list"
    Then the result at "skills" has 0 items

  @namespaces
  Scenario: in a namespace, the worker serves there and keeps its rows in the engine's built-in state
    Given the scenario runs its own local engine with namespaces
    When the worker is started as iii compose starts it in namespace "shop"
    And I call "skills::register" in namespace "shop" with:
      """
      {"id": "hello", "skill": "# Hello\n\nFrom the shop."}
      """
    Then the call succeeds
    And 1 "skills::on-change" event arrives within 2000 ms
    And the state of namespace "default" has the row "hello" in the skills scope
    When I call "skills::list" in namespace "shop"
    Then the result contains:
      """
      {"skills": [{"id": "hello", "origin": "state"}]}
      """
    When I call "skills::list"
    Then the call fails with code "function_not_found"
    And the error message contains "not found in namespace default"
    And the error message contains "registered in namespace(s): shop"

  @namespaces
  Scenario: a namespace with a state worker of its own keeps the worker's rows in its own store
    Given the scenario runs its own local engine with namespaces
    And the state worker registers in namespace "red"
    And the state worker registers in namespace "blue"
    When the worker is started as iii compose starts it in namespace "red"
    And I call "skills::register" in namespace "red" with:
      """
      {"id": "red-only", "skill": "# Red only"}
      """
    Then the call succeeds
    And the state of namespace "red" has the row "red-only" in the skills scope
    And the state of namespace "blue" has no row "red-only" in the skills scope
    And the state of namespace "default" has no row "red-only" in the skills scope
    When I call "skills::diagnostics" in namespace "red"
    Then the result at "engine.state_trigger" is true
    When I call "skills::list" in namespace "blue"
    Then the call fails with code "function_not_found"
    And the error message contains "registered in namespace(s): red"

  @state_late
  Scenario: a state worker that registers late is followed without a reconnect
    Until the state worker registers, every state read goes to the engine
    (read-through), which cannot answer it: a listing, which could not tell
    a file from the state row that would shadow it, fails rather than serve
    something stale (D18). Once it registers, the same connection goes live.
    Given the scenario runs its own local engine with a late state worker
    And the file "fs-skills/alpha.md" contains:
      """
      # Alpha
      """
    When I call "skills::diagnostics"
    Then the result contains:
      """
      {"engine": {"connected": true, "state_trigger": false}, "catalog": {"mode": "read-through"}}
      """
    When I call "skills::list"
    Then the call fails with code "unavailable"
    And the error message contains "Function state::list not found"
    When the state worker registers
    Then within 1000 ms, calling "skills::diagnostics" gives a result containing:
      """
      {"engine": {"state_trigger": true}, "catalog": {"mode": "live"}}
      """
    When I call "skills::register" with:
      """
      {"id": "late", "skill": "# Late\n\nRegistered once state came."}
      """
    Then the call succeeds
    And the state of namespace "default" has the row "late" in the skills scope
    When I call "skills::list"
    Then the result contains:
      """
      {"skills": [{"id": "alpha", "origin": "fs"}, {"id": "late", "origin": "state"}]}
      """

  @live_config
  Scenario: a page_size set in the configuration entry applies without a restart
    Given the scenario runs its own local engine with a configuration worker
    And the file "fs-skills/a.md" contains:
      """
      # A
      """
    And the file "fs-skills/b.md" contains:
      """
      # B
      """
    And the file "fs-skills/c.md" contains:
      """
      # C
      """
    When I call "skills::resources-list"
    Then the result at "resources" has 4 items
    And the result has no "nextCursor"
    When the configuration entry "skills" gets:
      """
      {"page_size": 1}
      """
    Then the call succeeds
    And within 2000 ms, calling "skills::resources-list" gives 1 item at "resources"
    And the result at "nextCursor" matches ".+"
    When I call "skills::diagnostics"
    Then the result at "live_config" is {"entry": "skills", "applied": ["page_size"]}

  @live_config
  Scenario: a value the schema accepts but the worker refuses leaves the running config as it was
    Given the scenario runs its own local engine with a configuration worker
    And the file "fs-skills/a.md" contains:
      """
      # A
      """
    And the file "fs-skills/b.md" contains:
      """
      # B
      """
    And the file "fs-skills/c.md" contains:
      """
      # C
      """
    When the configuration entry "skills" gets:
      """
      {"page_size": -1}
      """
    Then the call fails with code "SCHEMA_INVALID"
    When the configuration entry "skills" gets:
      """
      {"page_size": 1, "search.embedder": "state::embed"}
      """
    Then the call succeeds
    And within 2000 ms, calling "skills::diagnostics" gives a result with "live_config.refused"
    And the result at "live_config.refused" matches "`search\.embedder` must be .* got \"state::embed\""
    When I call "skills::resources-list"
    Then the result at "resources" has 4 items
    And the result has no "nextCursor"

  @live_config
  Scenario: a key that needs a restart is reported, not applied
    Given the scenario runs its own local engine with a configuration worker
    When the configuration entry "skills" gets:
      """
      {"max_frame_bytes": 2097152}
      """
    Then the call succeeds
    And within 2000 ms, calling "skills::diagnostics" gives at "live_config.restart_needed" ["max_frame_bytes"]
    And the result has no "live_config.applied"
    And the result has no "live_config.refused"
