@engine @diagnostics @file_changes
Feature: Digest changes of skill files in the diagnostics
  Files are not versioned by the registry: their history is the
  filesystem's or git's (issue 31). skills::diagnostics shows instead the
  last changes of the served skill files' digests, as the content view
  judged them (docs/decisions.md D86): the id, the path, the previous and
  new sha256 and bytes, and when the view saw it. A touch, which leaves
  the bytes as they were, is no change.

  Scenario: a file rewritten with new content shows one change with both digests; a touch shows none
    Given the file "fs-skills/notes.md" contains:
      """
      # Notes

      First.
      """
    And the file "fs-skills/notes.md" was last modified an hour ago
    When I call "skills::diagnostics"
    Then the result has no "file_changes"
    When the file "fs-skills/notes.md" contains:
      """
      # Notes v2

      Edited in place, and longer.
      """
    Then 1 "skills::on-change" event arrives within 3000 ms
    When I call "skills::diagnostics"
    Then the result at "file_changes" has 1 items
    And the result contains:
      """
      {"file_changes": [{"id": "notes",
        "previous_sha256": "de2c3902a41665fd16039c93c32ee8531755b564cf7e272d8bb5742278fe966f", "previous_bytes": 15,
        "sha256": "6625b6485d8499adcf911ffc632b3e570b1f4f832141b9e8f2d3843f8d18ecf5", "bytes": 40}]}
      """
    And every item at "file_changes" has:
      """
      {"path": "string", "at": "string"}
      """
    And the result has no "file_changes_omitted"
    When the file "fs-skills/notes.md" was last modified an hour ago
    Then 2 "skills::on-change" events arrive within 3000 ms
    When I call "skills::diagnostics"
    Then the result at "file_changes" has 1 items
