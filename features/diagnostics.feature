@engine @diagnostics
Feature: Diagnostics over the protocol
  skills::diagnostics (docs/decisions.md D42) answers what an operator would
  otherwise dig out of the worker's logs: every file found and what became of
  it, the roots, the tool skills, the catalog, the engine link, the watch and
  the reads per skill since boot.

  Scenario: a running worker reports its files, roots, catalog, engine, watch and reads
    Given the worker config has:
      """
      {"roots": ["fs-roots", "no-such-root"]}
      """
    And the file "fs-skills/good.md" contains:
      """
      # Good
      """
    And the file "fs-skills/Bad Name.md" contains:
      """
      # Bad
      """
    And the file "fs-skills/dual.md" contains:
      """
      # Dual on disk
      """
    And the file "fs-roots/pdf/SKILL.md" contains:
      """
      ---
      name: pdf-forms
      description: Fill forms.
      ---
      # PDF
      """
    And the skill "dual" is registered
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://good"}
      """
    And I call "skills::resources-read" with:
      """
      {"uri": "iii://good"}
      """
    And I call "skills::diagnostics"
    Then the result contains:
      """
      {"files": [{"id": "dual", "kind": "skill", "status": "shadowed", "reason": "a registered entry has the same id; state wins"},
                 {"id": "good", "kind": "skill", "status": "loaded"},
                 {"id": "pdf", "kind": "skill", "status": "loaded"},
                 {"kind": "skill", "status": "skipped"},
                 {"kind": "skill", "status": "warning"}],
       "roots": [{"status": "ok", "skills": 1}, {"status": "missing", "skills": 0}],
       "catalog": {"skills": 1, "prompts": 0, "mode": "live"},
       "engine": {"connected": true, "state_trigger": true},
       "watch": {"mode": "fsnotify"},
       "reads": {"good": 2}}
      """

  Scenario: tool skills show with their approval
    Given the worker config has:
      """
      {"roots": ["fs-roots"], "tools": {"enabled": true}}
      """
    And the file "fs-roots/ops/SKILL.md" contains:
      """
      ---
      name: ops
      version: 1.0.0
      description: Operations.
      ---
      ### uptime

      Show the uptime.

      #### Command

      ```
      uptime
      ```
      """
    And the file "fs-roots/broken/SKILL.md" contains:
      """
      ---
      name: broken
      version: 1.0.0
      description: A tool without a command.
      ---
      ### lost

      #### Parameters

      None.
      """
    When I call "skills::diagnostics"
    Then the result contains:
      """
      {"tools": [{"skill": "broken", "status": "invalid"}, {"skill": "ops", "tool": "uptime", "status": "pending"}]}
      """
    When I approve the tools of "ops"
    Then the engine lists the function "ops::uptime"
    When I call "skills::diagnostics"
    Then the result contains:
      """
      {"tools": [{"skill": "broken", "status": "invalid"}, {"skill": "ops", "tool": "uptime", "status": "approved"}]}
      """
