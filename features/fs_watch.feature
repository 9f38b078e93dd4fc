@engine @fs_watch
Feature: Watched files
  The worker watches the directories under its globs (docs/decisions.md D20,
  D21): a file added or changed fires skills::on-change or prompts::on-change
  with "source": "fs", a file removed fires "unregister", one event per id
  per burst, nothing for an id a state entry shadows. Listings see a file
  added or removed on the very next call; a read always reads the file.

  Scenario: a file added, edited and removed under a glob fires on-change events with source fs
    Given the skill "stateful" is registered
    Then 1 "skills::on-change" event arrives within 3000 ms
    When the file "fs-skills/fresh.md" contains:
      """
      # Fresh

      Just written.
      """
    Then 2 "skills::on-change" events arrive within 3000 ms
    And the "skills::on-change" events are:
      """
      [{"op": "register", "id": "stateful"}, {"op": "register", "id": "fresh", "source": "fs"}]
      """
    When the file "fs-skills/fresh.md" contains:
      """
      # Fresh

      Edited, and longer than before.
      """
    Then 3 "skills::on-change" events arrive within 3000 ms
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fresh"}
      """
    Then the result text contains "Edited, and longer than before."
    When the file "fs-skills/fresh.md" is removed
    Then 4 "skills::on-change" events arrive within 3000 ms
    And the "skills::on-change" events are:
      """
      [{"op": "register", "id": "stateful"}, {"op": "register", "id": "fresh", "source": "fs"},
       {"op": "register", "id": "fresh", "source": "fs"}, {"op": "unregister", "id": "fresh", "source": "fs"}]
      """
    When I call "skills::list"
    Then the result at "skills" has 1 item
    And the result at "skills.0.id" is "stateful"

  Scenario: a file added just before a listing is listed by it
    Given the skill "stateful" is registered
    And the file "fs-skills/team/new.md" contains:
      """
      # New
      """
    When I call "skills::list"
    Then the result at "skills" has 2 items
    And the result at "skills.1.id" is "team/new"

  Scenario: a file whose id state shadows fires nothing
    Given the skill "dual" is registered
    Then 1 "skills::on-change" event arrives within 3000 ms
    When the file "fs-skills/dual.md" contains:
      """
      # Dual on disk
      """
    And the file "fs-skills/other.md" contains:
      """
      # Other
      """
    Then 2 "skills::on-change" events arrive within 3000 ms
    And the "skills::on-change" events are:
      """
      [{"op": "register", "id": "dual"}, {"op": "register", "id": "other", "source": "fs"}]
      """

  Scenario: a prompt file added fires prompts::on-change with source fs
    Given the skill "stateful" is registered
    When the file "fs-prompts/greet.md" contains:
      """
      ---
      description: Greets.
      ---
      Hello.
      """
    Then 1 "prompts::on-change" event arrives within 3000 ms
    And the "prompts::on-change" events are:
      """
      [{"op": "register", "name": "greet", "source": "fs"}]
      """
