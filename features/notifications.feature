@engine @notifications
Feature: Change notifications
  After every successful mutation the worker invokes each subscriber of
  skills::on-change / prompts::on-change (fire-and-forget) with
  {op, id} or {op, name}. Every scenario's worker has one subscriber, the
  harness's recorder; "N events arrive" means exactly N: N arrive within
  the time given, and no more before the notification of a marker change
  made afterwards (a skill or prompt bdd-marker-<n>, registered and
  unregistered at once), which the worker sends after any earlier one.

  Scenario: skills::register fires skills::on-change
    Given the skill "alpha" is registered
    Then 1 "skills::on-change" event arrives within 3000 ms
    And the "skills::on-change" events are:
      """
      [{"op": "register", "id": "alpha"}]
      """
    And no "prompts::on-change" event arrives before a marker change

  Scenario: a row another worker writes or deletes fires skills::on-change once, as a registration would
    Given the skill "alpha" is registered
    Then 1 "skills::on-change" event arrives within 3000 ms
    When the skills scope holds the row "theirs":
      """
      {"id": "theirs", "skill": "# Theirs", "registered_at": "2026-11-23T00:00:00.000000000+00:00"}
      """
    Then 2 "skills::on-change" events arrive within 3000 ms
    When the skills scope loses the row "theirs"
    Then the "skills::on-change" events are:
      """
      [{"op": "register", "id": "alpha"}, {"op": "register", "id": "theirs"}, {"op": "unregister", "id": "theirs"}]
      """

  Scenario: skills::unregister fires skills::on-change
    Given the skill "alpha" is registered
    When I call "skills::unregister" with:
      """
      {"id": "alpha"}
      """
    Then 2 "skills::on-change" events arrive within 4000 ms
    And the "skills::on-change" events are:
      """
      [{"op": "register", "id": "alpha"}, {"op": "unregister", "id": "alpha"}]
      """

  Scenario: 3 rapid skill mutations each produce a notification
    Given the skills "one, two, one" are registered
    Then 3 "skills::on-change" events arrive within 5000 ms

  Scenario: prompts::register fires prompts::on-change
    When I call "prompts::register" with:
      """
      {"name": "p", "description": "d", "function_id": "bdd::prompt-string"}
      """
    Then 1 "prompts::on-change" event arrives within 3000 ms
    And the "prompts::on-change" events are:
      """
      [{"op": "register", "name": "p"}]
      """
    And no "skills::on-change" event arrives before a marker change

  Scenario: prompts::unregister fires prompts::on-change
    When I call "prompts::register" with:
      """
      {"name": "p", "description": "d", "function_id": "bdd::prompt-string"}
      """
    And I call "prompts::unregister" with:
      """
      {"name": "p"}
      """
    Then 2 "prompts::on-change" events arrive within 4000 ms
    And the "prompts::on-change" events are:
      """
      [{"op": "register", "name": "p"}, {"op": "unregister", "name": "p"}]
      """

  Scenario: no-op unregisters, failed calls and reads fire nothing
    When I call "skills::unregister" with:
      """
      {"id": "never-registered"}
      """
    And I call "prompts::unregister" with:
      """
      {"name": "never-registered"}
      """
    And I call "skills::register" with:
      """
      {"id": "Bad", "skill": "x"}
      """
    And I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then no "skills::on-change" event arrives before a marker change
    And no "prompts::on-change" event arrives before a marker change
