@engine @revisions
Feature: Revisions and rollback of stored skills
  Every change of a stored skill's body keeps a revision in the engine's
  state (docs/decisions.md D83): numbered from 1, with its time, sha256,
  bytes, the writing worker and, for the newest revisions_kept (10 by
  default), its body. A re-register of an unchanged body makes none.
  skills::rollback restores a kept body as a new revision.

  Scenario: three revisions, rolled back to the first, are seen on every surface with a new revision and one on-change
    The MCP Skills extension's entries carry the revision in _meta.
    When I call "skills::register" with:
      """
      {"id": "acme", "skill": "# Acme\n\nFirst version."}
      """
    And I call "skills::register" with:
      """
      {"id": "acme", "skill": "# Acme\n\nFirst version."}
      """
    And I call "skills::register" with:
      """
      {"id": "acme", "skill": "# Acme\n\nSecond version."}
      """
    And I call "skills::register" with:
      """
      {"id": "acme", "skill": "# Acme\n\nThird version."}
      """
    Then 4 "skills::on-change" events arrive within 5000 ms
    When I call "skills::history" with:
      """
      {"id": "acme"}
      """
    Then the result at "revisions" has 3 items
    And the result contains:
      """
      {"id": "acme", "revisions": [
        {"revision": 3, "bytes": 22, "kept": true},
        {"revision": 2, "bytes": 23, "kept": true},
        {"revision": 1, "bytes": 22, "kept": true}
      ]}
      """
    And every item at "revisions" has:
      """
      {"at": "string", "sha256": "string", "worker": "string", "body": "absent"}
      """
    When I call "skills::rollback" with:
      """
      {"id": "acme", "revision": 1}
      """
    Then the result contains:
      """
      {"id": "acme", "revision": 4, "restored_from": 1}
      """
    And 5 "skills::on-change" events arrive within 3000 ms
    And the "skills::on-change" events are:
      """
      [{"op": "register", "id": "acme"}, {"op": "register", "id": "acme"}, {"op": "register", "id": "acme"},
       {"op": "register", "id": "acme"}, {"op": "register", "id": "acme"}]
      """
    When I call "skills::list" with:
      """
      {"revision": true}
      """
    Then the result contains:
      """
      {"skills": [{"id": "acme", "bytes": 22, "origin": "state", "revision": 4}]}
      """
    When I call "skills::list"
    Then the result has no "skills.0.revision"
    When I call "skill::search" with:
      """
      {"query": "acme"}
      """
    Then the result contains:
      """
      {"results": [{"id": "acme", "revision": 4}]}
      """
    When I call "skills::mcp-skills-list"
    Then the result contains:
      """
      {"skills": [{"uri": "skill://acme/SKILL.md", "_meta": {"dev.iii.skills/revision": 4}}]}
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://acme"}
      """
    Then the result text is:
      """
      # Acme

      First version.
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text contains "[`acme`](iii://acme) — Acme — First version."
    When I call "skills::history" with:
      """
      {"id": "acme"}
      """
    Then the result at "revisions" has 4 items
    And the result contains:
      """
      {"revisions": [{"revision": 4, "bytes": 22, "kept": true}]}
      """

  Scenario: history and rollback of what is not there answer not_found naming it
    Given the skill "acme" is registered
    When I call "skills::history" with:
      """
      {"id": "ghost"}
      """
    Then the call fails with code "not_found"
    And the error message contains "Skill not found: ghost"
    When I call "skills::rollback" with:
      """
      {"id": "acme", "revision": 7}
      """
    Then the call fails with code "not_found"
    And the error message contains "skill acme has no revision 7 (its revisions are 1 to 1)"
    When I call "skills::rollback" with:
      """
      {"id": "acme", "revision": 0}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "got 0"

  Scenario: a prompt's changed definition is a new revision, an unchanged one is not
    When I call "prompts::register" with:
      """
      {"name": "greet", "description": "Say hello", "function_id": "bdd::prompt-string"}
      """
    And I call "prompts::register" with:
      """
      {"name": "greet", "description": "Say hello", "function_id": "bdd::prompt-string"}
      """
    And I call "prompts::register" with:
      """
      {"name": "greet", "description": "Say hello warmly", "function_id": "bdd::prompt-string"}
      """
    And I call "prompts::history" with:
      """
      {"name": "greet"}
      """
    Then the result at "revisions" has 2 items
    And the result contains:
      """
      {"name": "greet", "revisions": [{"revision": 2, "kept": true}, {"revision": 1, "kept": true}]}
      """
    When I call "prompts::history" with:
      """
      {"name": "ghost"}
      """
    Then the call fails with code "not_found"
    And the error message contains "Prompt not found: ghost"

  Scenario: a prompt rolled back to its first definition is a new revision, listed when asked, with one on-change
    prompts::rollback restores a kept definition as skills::rollback restores
    a body; prompts::list names each stored prompt's revision only when asked
    (docs/decisions.md D86).
    When I call "prompts::register" with:
      """
      {"name": "greet", "description": "Say hello", "function_id": "bdd::prompt-string",
       "arguments": [{"name": "who", "description": "Who to greet", "required": true}]}
      """
    And I call "prompts::register" with:
      """
      {"name": "greet", "description": "Say hello warmly", "function_id": "bdd::prompt-string"}
      """
    Then 2 "prompts::on-change" events arrive within 3000 ms
    When I call "prompts::rollback" with:
      """
      {"name": "greet", "revision": 1}
      """
    Then the result contains:
      """
      {"name": "greet", "revision": 3, "restored_from": 1}
      """
    And the result at "registered_at" matches "^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$"
    And 3 "prompts::on-change" events arrive within 3000 ms
    And the "prompts::on-change" events are:
      """
      [{"op": "register", "name": "greet"}, {"op": "register", "name": "greet"}, {"op": "register", "name": "greet"}]
      """
    When I call "prompts::list" with:
      """
      {"revision": true}
      """
    Then the result contains:
      """
      {"prompts": [{"name": "greet", "origin": "state", "arguments": 1, "revision": 3}]}
      """
    When I call "prompts::list"
    Then the result has no "prompts.0.revision"
    When I call "prompts::mcp-list"
    Then the result contains:
      """
      {"prompts": [{"name": "greet", "description": "Say hello",
                    "arguments": [{"name": "who", "description": "Who to greet", "required": true}]}]}
      """
    When I call "prompts::history" with:
      """
      {"name": "greet"}
      """
    Then the result at "revisions" has 3 items
    When I call "prompts::rollback" with:
      """
      {"name": "greet", "revision": 7}
      """
    Then the call fails with code "not_found"
    And the error message contains "prompt greet has no revision 7 (its revisions are 1 to 3)"
    When I call "prompts::rollback" with:
      """
      {"name": "ghost", "revision": 1}
      """
    Then the call fails with code "not_found"
    And the error message contains "Prompt not found: ghost"
    When I call "prompts::rollback" with:
      """
      {"name": "greet", "revision": 0}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "as prompts::history lists them, got 0"
