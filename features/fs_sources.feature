@engine @fs_sources
Feature: Filesystem-backed skills and prompts
  The scenario's config globs fs-skills/**/*.md and fs-prompts/**/*.md next
  to it. Files are re-read on every call, never written to state, and a
  state row with the same id wins.

  Scenario: a flat folder of fs skills appears in skills::list with origin=fs
    Given the file "fs-skills/alpha.md" contains:
      """
      # Alpha

      From disk.
      """
    And the file "fs-skills/beta.md" contains:
      """
      # Beta
      """
    When I call "skills::list"
    Then the result at "skills" has 2 items
    And the result contains:
      """
      {"skills": [{"id": "alpha", "origin": "fs", "bytes": 19}, {"id": "beta", "origin": "fs", "bytes": 6}]}
      """
    And every item at "skills" has:
      """
      {"registered_at": "string"}
      """

  Scenario: nested folders derive slashed ids
    Given the file "fs-skills/team-a/playbook.md" contains:
      """
      # Playbook
      """
    And the file "fs-skills/team-a/meetings/standup.md" contains:
      """
      # Standup
      """
    When I call "skills::list"
    Then the result contains:
      """
      {"skills": [{"id": "team-a/meetings/standup", "origin": "fs"}, {"id": "team-a/playbook", "origin": "fs"}]}
      """

  Scenario: iii://{id} returns the file body fresh
    Given the file "fs-skills/lookup.md" contains:
      """
      ---
      title: ignored frontmatter
      ---
      # Lookup

      Looked up from disk.
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://lookup"}
      """
    Then the result is:
      """
      {"contents": [{"uri": "iii://lookup", "mimeType": "text/markdown", "text": "# Lookup\n\nLooked up from disk."}]}
      """

  Scenario: file changes between reads are reflected immediately
    Given the file "fs-skills/live.md" contains:
      """
      # Live

      First version.
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://live"}
      """
    Then the result text contains "First version."
    Given the file "fs-skills/live.md" contains:
      """
      # Live

      Second version.
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://live"}
      """
    Then the result text contains "Second version."
    And the result text does not contain "First version."

  Scenario: the iii://skills index has a Custom skills H2 section
    Given the skill "stateful" is registered
    And the file "fs-skills/team-a/playbook.md" contains:
      """
      # Team A playbook

      Top-level body.
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text is:
      """
      # Skills

      Read each skill's resource for orientation on when and why to call its functions. Sub-skills are indented under their parent path so a top-level skill stays small and the LLM can drill in only when it needs more detail.

      - [`stateful`](iii://stateful) — stateful — Body of stateful.

      ## Custom skills

      Loaded from `skills:` glob patterns in the worker config. The file system is the source of truth for these entries.

        - [`team-a/playbook`](iii://team-a/playbook) — Team A playbook — Top-level body.

      """

  Scenario: nested fs skills are indented in the index by depth
    Given the file "fs-skills/tree.md" contains:
      """
      # Tree
      """
    And the file "fs-skills/tree/leaf.md" contains:
      """
      # Leaf
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text has the line "- [`tree`](iii://tree) — Tree"
    And the result text has the line "  - [`tree/leaf`](iii://tree/leaf) — Leaf"

  Scenario: a fs id colliding with a state-backed id is shadowed
    Given the file "fs-skills/dual.md" contains:
      """
      # From the file
      """
    And the skill "dual" is registered with body:
      """
      # From state
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://dual"}
      """
    Then the result text is:
      """
      # From state
      """
    When I call "skills::list"
    Then the result at "skills" has 1 item
    And the result at "skills.0.origin" is "state"
    When I call "skills::unregister" with:
      """
      {"id": "dual"}
      """
    And I call "skills::resources-read" with:
      """
      {"uri": "iii://dual"}
      """
    Then the result text is:
      """
      # From the file
      """

  Scenario: a fs skill file with uppercase in its name is skipped
    Given the file "fs-skills/Bad-Name.md" contains:
      """
      # Bad
      """
    And the file "fs-skills/good.md" contains:
      """
      # Good
      """
    When I call "skills::list"
    Then the result at "skills" has 1 item
    And the result at "skills.0.id" is "good"
    And the result does not contain:
      """
      {"skills": [{"id": "Bad-Name"}]}
      """
    And the result does not contain:
      """
      {"skills": [{"id": "bad-name"}]}
      """

  Scenario: a fs prompt with frontmatter appears in mcp-list
    Given the file "fs-prompts/open-pr.md" contains:
      """
      ---
      description: Open a GitHub pull request.
      ---
      Open a pull request for the current branch.
      """
    When I call "prompts::mcp-list"
    Then the result is:
      """
      {"prompts": [{"name": "open-pr", "description": "Open a GitHub pull request.", "arguments": []}]}
      """
    When I call "prompts::list"
    Then the result contains:
      """
      {"prompts": [{"name": "open-pr", "origin": "fs", "function_id": "", "arguments": 0}]}
      """

  Scenario: prompts/get for a fs prompt returns the body as a single user-text message
    Given the file "fs-prompts/nested/static.md" contains:
      """
      ---
      description: A static prompt
      ---
      Say hello to the team.

      """
    When I call "prompts::mcp-get" with:
      """
      {"name": "static", "arguments": {"ignored": "yes"}}
      """
    Then the result is:
      """
      {"description": "A static prompt",
       "messages": [{"role": "user", "content": {"type": "text", "text": "Say hello to the team.\n"}}]}
      """

  Scenario: a fs prompt without frontmatter is skipped
    Given the file "fs-prompts/no-fm.md" contains:
      """
      Just a body, no frontmatter.
      """
    And the file "fs-prompts/with-fm.md" contains:
      """
      ---
      description: Has frontmatter
      ---
      Body.
      """
    When I call "prompts::mcp-list"
    Then the result at "prompts" has 1 item
    And the result at "prompts.0.name" is "with-fm"
