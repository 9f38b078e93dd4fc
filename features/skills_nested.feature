@engine @skills_nested
Feature: Nested skills and deep sections
  Skill ids nest with "/" (64 bytes per segment, 1024 in all); parents need
  not exist. The first segment "fn" is reserved for iii://fn/ section URIs,
  whose path segments are joined with "::" into a function id.

  Scenario: a single-level sub-skill resolves to its own body
    Given the skill "parent" is registered
    And the skill "parent/sub" is registered with body:
      """
      # Sub

      Only the sub-skill.
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://parent/sub"}
      """
    Then the result at "contents.0.mimeType" is "text/markdown"
    And the result text is:
      """
      # Sub

      Only the sub-skill.
      """

  Scenario: deep traversal reads three independent bodies
    Given the skills "a, a/b, a/b/c" are registered
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://a"}
      """
    Then the result text contains "Body of a."
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://a/b"}
      """
    Then the result text contains "Body of a/b."
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://a/b/c"}
      """
    Then the result text is:
      """
      # a/b/c

      Body of a/b/c.

      """

  Scenario: an orphan grandchild is still readable when the parents are absent
    Given the skill "orphan/child/grandchild" is registered
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://orphan/child/grandchild"}
      """
    Then the result text contains "Body of orphan/child/grandchild."
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://orphan/child"}
      """
    Then the call fails with code "not_found"

  Scenario: skills::list returns nested entries sorted lexicographically
    Given the skills "tree/leaf, tree-2, parent/child, tree, parent, parent/a" are registered
    When I call "skills::list"
    Then the result at "skills" has 6 items
    And the items at "skills" are sorted by "id"
    And the result contains:
      """
      {"skills": [{"id": "parent"}, {"id": "parent/a"}, {"id": "parent/child"},
                  {"id": "tree"}, {"id": "tree-2"}, {"id": "tree/leaf"}]}
      """

  Scenario: the iii://skills index indents nested entries by depth
    Given the skills "parent, parent/sub, parent/sub/leaf" are registered
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text has the line "- [`parent`](iii://parent) — parent — Body of parent."
    And the result text has the line "  - [`parent/sub`](iii://parent/sub) — parent/sub — Body of parent/sub."
    And the result text has the line "    - [`parent/sub/leaf`](iii://parent/sub/leaf) — parent/sub/leaf — Body of parent/sub/leaf."

  Scenario: registering id "fn" is rejected with a "reserved" hint
    When I call "skills::register" with:
      """
      {"id": "fn", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "id may not have "fn" as its first segment (reserved as the iii://fn/ section-URI marker): "fn""

  Scenario: registering an id starting with "fn/" is rejected
    When I call "skills::register" with:
      """
      {"id": "fn/x", "skill": "# x"}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "reserved"

  Scenario: registering an id with "fn" at a non-first segment succeeds
    Given the skills "docs/fn-reference, a/fn, a/fn/c" are registered
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://docs/fn-reference"}
      """
    Then the result text contains "Body of docs/fn-reference."

  Scenario: iii://fn/{a}/{b} triggers a::b
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/bdd/deep"}
      """
    Then the result at "contents.0.mimeType" is "text/markdown"
    And the result text contains "deep-section"

  Scenario: iii://fn/{a}/{b}/{c} triggers a::b::c
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/bdd/deep/triple"}
      """
    Then the result at "contents.0.mimeType" is "text/markdown"
    And the result text contains "triple-section"

  Scenario: skill::fetch concatenates bodies across depths
    Given the skills "top, top/mid, top/mid/low" are registered
    When I call "skill::fetch" with:
      """
      {"uris": ["iii://top", "iii://top/mid", "iii://top/mid/low"]}
      """
    Then the result text has 3 sections
    And the result text contains "# iii://top\n\n# top\n\nBody of top.\n\n---\n\n# iii://top/mid\n\n"
    And the result text ends with "# iii://top/mid/low\n\n# top/mid/low\n\nBody of top/mid/low."
