@engine @roots
Feature: Every file of a skill folder
  A root serves every file of its skill folders, whatever its name's case or
  extension, under one rule (docs/decisions.md D69): a SKILL.md is its
  folder's id, a markdown file whose path without ".md" is a skill id keeps
  that id, and every other file is named by its path as written. Every
  surface sees the same files. A file over the body limit is skipped
  everywhere, with the reason.

  Background:
    Given the worker config has:
      """
      {"roots": ["fs-roots"]}
      """
    And the file "fs-roots/pdf-tool/SKILL.md" contains:
      """
      ---
      name: pdf-tool
      description: Fill PDF forms. Use when the user hands you a PDF.
      ---
      # PDF tool

      The calls are in [the API reference](references/API_REFERENCE.md).
      """
    And the file "fs-roots/pdf-tool/references/API_REFERENCE.md" contains:
      """
      # API reference

      Call fill_acroform with the field names of the document.
      """

  Scenario: a capitalised reference is served by its path as written, on every surface
    When I call "skill::fetch" with:
      """
      {"uri": "iii://pdf-tool/references/API_REFERENCE.md"}
      """
    Then the result text contains "Call fill_acroform with the field names"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://pdf-tool/references/API_REFERENCE.md"}
      """
    Then the result at "contents.0.mimeType" is "text/markdown"
    When I call "skills::list"
    Then the result contains:
      """
      {"skills": [{"id": "pdf-tool"}, {"id": "pdf-tool/references/API_REFERENCE.md", "origin": "fs"}]}
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text contains "(iii://pdf-tool/references/API_REFERENCE.md)"
    When I call "skill::search" with:
      """
      {"query": "fill_acroform field names", "group": false}
      """
    Then the result at "results.0.id" is "pdf-tool/references/API_REFERENCE.md"
    When I call "skills::mcp-skills-get" with:
      """
      {"uri": "skill://pdf-tool/SKILL.md"}
      """
    Then the result contains:
      """
      {"skill": {"resources": [{"uri": "skill://pdf-tool/references/API_REFERENCE.md"}]}}
      """
    When I call "skills::diagnostics"
    Then the result contains:
      """
      {"files": [{"id": "pdf-tool/references/API_REFERENCE.md", "status": "loaded"}]}
      """

  Scenario: a file over the body limit is skipped everywhere, with the reason
    Given the file "fs-roots/pdf-tool/references/huge.md" contains:
      """
      {big:262145}
      """
    When I call "skills::list"
    Then the result at "skills" has 2 items
    When I call "skill::fetch" with:
      """
      {"uri": "iii://pdf-tool/references/huge.md"}
      """
    Then the call fails with code "not_found"
    And the error message starts with "Skill not found: pdf-tool/references/huge.md (the file "
    And the error message contains "huge.md is not served: too large to serve (262145 bytes; max 262144, the body limit)"
    When I call "skills::mcp-skills-get" with:
      """
      {"uri": "skill://pdf-tool/SKILL.md"}
      """
    Then the result at "skill.resources" has 2 items
    When I call "skills::diagnostics"
    Then the result contains:
      """
      {"files": [{"kind": "skill", "status": "skipped", "reason": "too large to serve (262145 bytes; max 262144, the body limit): not listed, so that no read fails on it; split it or move it out of the skill folder"}]}
      """
