@engine @links
Feature: Relative links resolve
  A SKILL.md links its files and its sibling skills as Agent Skills are
  written: ./references/x.md, ../sibling/SKILL.md, {baseDir}/references/x.md,
  x.md#section, a folder/. skill::fetch follows such a link as written,
  given the iii:// URI of the document that holds it as base, and heads the
  answer with the URI the link names; a read of a URI written by joining a
  link to its skill's URI reads the same (docs/decisions.md D70). A link
  never leaves the registry, never names a section, and one to nothing is
  not_found naming the URI it resolved to.

  Background:
    Given the worker config has:
      """
      {"roots": ["fs-roots"]}
      """
    And the file "fs-roots/team/alpha/SKILL.md" contains:
      """
      ---
      name: alpha
      description: Plan the work.
      ---
      # Alpha

      Read [the guide](./references/guide.md#steps), then hand over to [beta](../beta/SKILL.md).
      """
    And the file "fs-roots/team/alpha/references/guide.md" contains:
      """
      # Guide

      Back to [alpha](../SKILL.md).
      """
    And the file "fs-roots/team/beta/SKILL.md" contains:
      """
      ---
      name: beta
      description: Do the work.
      ---
      # Beta
      """

  Scenario: ./ and a #fragment reach the file; the heading is the URI it names
    When I call "skill::fetch" with:
      """
      {"base": "iii://team/alpha", "uri": "./references/guide.md#steps"}
      """
    Then the result text starts with "# iii://team/alpha/references/guide.md\n\n# Guide"

  Scenario: a sibling skill by ../, as its SKILL.md or as its folder
    When I call "skill::fetch" with:
      """
      {"base": "iii://team/alpha", "uris": ["../beta/SKILL.md", "../beta/"]}
      """
    Then the result text is:
      """
      # iii://team/beta

      # Beta

      ---

      # iii://team/beta

      # Beta
      """

  Scenario: {baseDir} is the skill's folder, also from a file deeper in it
    When I call "skill::fetch" with:
      """
      {"base": "iii://team/alpha/references/guide.md", "uris": ["{baseDir}/references/guide.md", "../SKILL.md"]}
      """
    Then the result text starts with "# iii://team/alpha/references/guide.md\n\n# Guide"
    And the result text contains "# iii://team/alpha\n\n# Alpha"

  Scenario: a URI written by joining a link to the skill's URI reads what the link names
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://team/alpha/../beta/SKILL.md"}
      """
    Then the result text is:
      """
      # Beta
      """
    And the result at "contents.0.uri" is "iii://team/alpha/../beta/SKILL.md"
    When I call "skill::fetch" with:
      """
      {"uri": "iii://team/alpha/{baseDir}/references/guide.md#steps"}
      """
    Then the result text starts with "# iii://team/alpha/{baseDir}/references/guide.md#steps\n\n# Guide"

  Scenario: a link to nothing is not found naming the URI it resolved to
    When I call "skill::fetch" with:
      """
      {"base": "iii://team/alpha", "uri": "../gamma/SKILL.md"}
      """
    Then the call fails with code "not_found"
    And the error message is "Skill not found: team/gamma (the link "../gamma/SKILL.md" in "iii://team/alpha" resolves to iii://team/gamma)"

  Scenario: .. beyond the registry root, an escaped separator or NUL is refused naming the link
    When I call "skill::fetch" with:
      """
      {"base": "iii://team/alpha", "uri": "../../../etc/passwd"}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "cannot follow the link "../../../etc/passwd" in "iii://team/alpha": its .. goes above the registry root"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://team/alpha/..%2F..%2F..%2Fetc/passwd"}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "percent-encoded"
    When I call "skill::fetch" with:
      """
      {"base": "iii://team/alpha", "uri": "./a\u0000b.md"}
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "NUL"

  Scenario: without base, a request is 0.2's
    When I call "skill::fetch" with:
      """
      {"uri": "references/guide.md"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Invalid URI (must start with iii://): references/guide.md"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://team/beta/"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://team/beta/"
