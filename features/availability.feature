@engine @availability
Feature: Skills checked against the live engine
  A skill's requirements (docs/decisions.md D85) are the functions its
  iii://fn/… links name and what its frontmatter declares (requires:
  {functions, skills}, or metadata's iii-requires-functions and
  iii-requires-skills). The worker checks them against the engine's function
  list, which it lists again whenever the engine reports that workers or
  functions changed. Under unavailable: mark (the default) a skill whose
  requirement is missing is served and marked in the index, skills::list,
  skill::search and the MCP listings; under hide it is left out and its read
  refused. skills::on-change fires each time a skill's judgement turns.

  Scenario: a skill linking iii://fn/acme/status follows the worker that serves acme::status, within a second, on every surface
    The worker's first look at the engine's functions announces nothing; the
    skill is registered before any worker serves acme::status.
    Given the skill "acme/guide" is registered with body:
      """
      # Acme orders

      Check [the order status](iii://fn/acme/status) before any refund.
      """
    Then within 1000 ms, calling "skills::list" with "{}" gives a result that contains:
      """
      {"skills": [{"id": "acme/guide", "origin": "state", "unavailable": {"functions": ["acme::status"]}}]}
      """
    Given a worker "acme" serves the function "acme::status"
    Then within 1000 ms, calling "skills::list" with "{}" gives a result that does not contain:
      """
      {"skills": [{"id": "acme/guide", "unavailable": {}}]}
      """
    When the worker "acme" disconnects
    Then within 1000 ms, calling "skills::list" with "{}" gives a result that contains:
      """
      {"skills": [{"id": "acme/guide", "unavailable": {"functions": ["acme::status"]}}]}
      """
    And within 1000 ms, calling "skills::resources-read" with "{\"uri\": \"iii://skills\"}" gives a result that contains:
      """
      {"contents": [{"uri": "iii://skills"}]}
      """
    And the result text has the line "  - [`acme/guide`](iii://acme/guide) — Acme orders — Check [the order status](iii://fn/acme/status) before any refund. — unavailable: function acme::status"
    And within 1000 ms, calling "skill::search" with "{\"query\": \"acme order status refund\"}" gives a result that contains:
      """
      {"results": [{"id": "acme/guide", "unavailable": {"functions": ["acme::status"]}}]}
      """
    And within 1000 ms, calling "skills::mcp-skills-list" with "{}" gives a result that contains:
      """
      {"skills": [{"uri": "skill://acme/guide/SKILL.md", "_meta": {"dev.iii.skills/unavailable": {"functions": ["acme::status"]}}}]}
      """
    And within 1000 ms, calling "skills::resources-list" with "{}" gives a result that contains:
      """
      {"resources": [{"uri": "iii://acme/guide", "_meta": {"dev.iii.skills/unavailable": {"functions": ["acme::status"]}}}]}
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://acme/guide"}
      """
    Then the call succeeds
    Given a worker "acme" serves the function "acme::status"
    Then within 1000 ms, calling "skills::list" with "{}" gives a result that does not contain:
      """
      {"skills": [{"id": "acme/guide", "unavailable": {}}]}
      """
    And within 1000 ms, calling "skill::search" with "{\"query\": \"acme order status refund\"}" gives a result that does not contain:
      """
      {"results": [{"id": "acme/guide", "unavailable": {}}]}
      """
    And within 1000 ms, calling "skills::mcp-skills-list" with "{}" gives a result that does not contain:
      """
      {"skills": [{"uri": "skill://acme/guide/SKILL.md", "_meta": {"dev.iii.skills/unavailable": {}}}]}
      """
    And within 1000 ms, calling "skills::resources-read" with "{\"uri\": \"iii://skills\"}" gives a result that contains:
      """
      {"contents": [{"uri": "iii://skills"}]}
      """
    And the result text has the line "  - [`acme/guide`](iii://acme/guide) — Acme orders — Check [the order status](iii://fn/acme/status) before any refund."
    And 4 "skills::on-change" events arrive within 3000 ms
    And the "skills::on-change" events are:
      """
      [{"op": "register", "id": "acme/guide"},
       {"op": "available", "id": "acme/guide"},
       {"op": "unavailable", "id": "acme/guide", "missing": {"functions": ["acme::status"]}},
       {"op": "available", "id": "acme/guide"}]
      """

  Scenario: under unavailable: hide a skill missing a required function or skill is left out and its read refused
    Given the worker config has:
      """
      {"unavailable": "hide"}
      """
    And the file "fs-skills/report.md" contains:
      """
      ---
      requires:
        functions: [acme::report]
        skills: [acme/ledger]
      ---
      # Report
      """
    And the skill "plain" is registered
    Then within 1000 ms, calling "skills::list" with "{}" gives a result that does not contain:
      """
      {"skills": [{"id": "report"}]}
      """
    And the result contains:
      """
      {"skills": [{"id": "plain"}]}
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://report"}
      """
    Then the call fails with code "unavailable"
    And the error message is "Skill report is unavailable: what it requires is missing now (function acme::report, skill acme/ledger); unavailable is hide, and skills::diagnostics lists what each skill lacks"
    When I call "skills::diagnostics"
    Then the result contains:
      """
      {"availability": {"mode": "hide", "unavailable": [{"id": "report", "missing": {"functions": ["acme::report"], "skills": ["acme/ledger"]}}]}}
      """
