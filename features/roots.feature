@engine @roots
Feature: Agent Skills folders
  Config roots are folders of Agent Skills (docs/decisions.md D30–D33): each
  <root>/<name>/SKILL.md is the skill <name>, served without its frontmatter;
  the other markdown files of its folder are nested ids, so the SKILL.md's
  relative links resolve through iii://; the index shows the frontmatter
  description. State wins over globs, globs over roots, an earlier root over
  a later one. skills::roots::index|load|rescan answer with the upstream
  v0.3 shapes.

  Background:
    Given the worker config has:
      """
      {"roots": ["fs-roots/first", "fs-roots/second"]}
      """
    And the file "fs-roots/first/pdf/SKILL.md" contains:
      """
      ---
      name: pdf
      description: Fill and merge PDF forms. Use when the user hands you a PDF.
      license: Apache-2.0
      ---
      # PDF tools

      Read [the form guide](references/forms.md) before filling a form.
      """
    And the file "fs-roots/first/pdf/references/forms.md" contains:
      """
      # Form guide

      Fields are named in the document's AcroForm.
      """

  Scenario: a SKILL.md is served without its frontmatter, its references as nested ids
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://pdf"}
      """
    Then the result text is:
      """
      # PDF tools

      Read [the form guide](references/forms.md) before filling a form.
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://pdf/references/forms"}
      """
    Then the result text starts with "# Form guide"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text has the line "- [`pdf`](iii://pdf) — PDF tools — Fill and merge PDF forms. Use when the user hands you a PDF."
    And the result text has the line "    - [`pdf/references/forms`](iii://pdf/references/forms) — Form guide — Fields are named in the document's AcroForm."
    And the result text has the line "Loaded from `skills:` glob patterns and `roots:` skill folders in the worker config. The file system is the source of truth for these entries."
    When I call "skills::list"
    Then the result at "skills" has 2 items
    And the result at "skills.0.origin" is "fs"
    And the result at "skills.1.origin" is "fs"

  Scenario: a link followed as the SKILL.md writes it reads the file it names
    When I call "skill::fetch" with:
      """
      {"uri": "iii://pdf/references/forms.md"}
      """
    Then the result text contains "# Form guide"
    When I call "skill::fetch" with:
      """
      {"uri": "iii://pdf/SKILL.md"}
      """
    Then the result text contains "# PDF tools"
    When I call "skill::fetch" with:
      """
      {"uri": "iii://pdf/references/missing.md"}
      """
    Then the call fails with code "not_found"
    And the error message is "Skill not found: pdf/references/missing.md"

  Scenario: state wins over globs, globs over roots, an earlier root over a later one
    Given the file "fs-roots/second/pdf/SKILL.md" contains:
      """
      ---
      name: pdf
      description: The second root's pdf.
      ---
      # Second PDF
      """
    And the file "fs-roots/second/xlsx/SKILL.md" contains:
      """
      ---
      name: xlsx
      description: Spreadsheets.
      ---
      # Second xlsx
      """
    And the file "fs-skills/xlsx.md" contains:
      """
      # Globbed xlsx
      """
    When I call "skill::fetch" with:
      """
      {"uris": ["iii://pdf", "iii://xlsx"]}
      """
    Then the result text contains "# PDF tools"
    And the result text contains "# Globbed xlsx"
    And the result text does not contain "Second"
    And the worker output contains "fs-roots/first/pdf/SKILL.md serves the id"
    When I call "skills::register" with:
      """
      {"id": "pdf", "skill": "# PDF from state"}
      """
    And I call "skills::resources-read" with:
      """
      {"uri": "iii://pdf"}
      """
    Then the result text is:
      """
      # PDF from state
      """

  Scenario: a SKILL.md whose frontmatter cannot serve it is skipped with the reason; a lesser problem only warns
    Given the file "fs-roots/first/broken/SKILL.md" contains:
      """
      ---
      name: [unclosed
      ---
      # Broken
      """
    And the file "fs-roots/first/nodesc/SKILL.md" contains:
      """
      ---
      name: nodesc
      ---
      # No description
      """
    And the file "fs-roots/first/renamed/SKILL.md" contains:
      """
      ---
      name: other
      description: The folder and the name differ.
      ---
      # Renamed
      """
    When I call "skills::list"
    Then the result at "skills" has 3 items
    And the worker output contains "the frontmatter has no description"
    And the worker output contains "invalid YAML frontmatter"
    And the worker output contains "differs from its folder name"

  Scenario: a skill folder added under a root fires skills::on-change with source fs
    Given the skill "stateful" is registered
    Then 1 "skills::on-change" event arrives within 3000 ms
    When the file "fs-roots/second/new-skill/SKILL.md" contains:
      """
      ---
      name: new-skill
      description: Just added.
      ---
      # New skill
      """
    Then 2 "skills::on-change" events arrive within 3000 ms
    And the "skills::on-change" events are:
      """
      [{"op": "register", "id": "stateful"}, {"op": "register", "id": "new-skill", "source": "fs"}]
      """

  Scenario: skills::roots::index, load and rescan answer with the upstream shapes
    When I call "skills::roots::index" with:
      """
      {"filter": "PDF"}
      """
    Then the result is:
      """
      {"count": 1, "skills": [{"description": "Fill and merge PDF forms. Use when the user hands you a PDF.",
        "id": "pdf", "path": "{dir}/fs-roots/first/pdf/SKILL.md", "title": "PDF tools"}]}
      """
    When I call "skills::roots::load" with:
      """
      {"id": "pdf"}
      """
    Then the result at "body" is "# PDF tools\n\nRead [the form guide](references/forms.md) before filling a form."
    And the result at "title" is "PDF tools"
    When I call "skills::roots::load" with:
      """
      {"id": "missing"}
      """
    Then the call fails with code "not_found"
    And the error message is "skill not found: missing"
    When I call "skills::roots::load" with:
      """
      {}
      """
    Then the error message is "missing required field: id"
    When the file "fs-roots/second/docx/SKILL.md" contains:
      """
      ---
      name: docx
      description: Word documents.
      ---
      # Docx
      """
    And I call "skills::roots::rescan"
    Then the result is:
      """
      {"count": 2}
      """
