@engine @usage
Feature: Usage by stage
  skills::usage (docs/decisions.md D84) reports, per skill id, how often it
  was listed, returned by skill::search (by rank), read and fetched, and each
  iii://fn section served, with first and last use, merged across the
  worker's replicas; and the skills served that nobody opened. since counts
  the uses from the start of its UTC hour on, at most 48 hours back (D87). A read never
  waits on the counting: the counts are kept in memory and written to state
  in batches.

  Scenario: after a scripted agent session skills::usage reports exactly its counts
    The list and the index each list both skills; the read of the index is a
    listing, not a read of a skill.
    Given the skill "pg/backup" is registered with body:
      """
      # Postgres backups

      Take a base backup with pg_basebackup and keep the WAL archive.
      """
    And the skill "pg/tuning" is registered with body:
      """
      # Postgres tuning

      Read EXPLAIN ANALYZE output before a postgres backup index is added.
      """
    When I call "skills::list"
    And I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    And I call "skill::search" with:
      """
      {"query": "postgres backup with pg_basebackup"}
      """
    Then the result at "results.0.id" is "pg/backup"
    And the result at "results.1.id" is "pg/tuning"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://pg/backup"}
      """
    And I call "skill::fetch" with:
      """
      {"uris": ["iii://pg/backup", "iii://pg/backup", "iii://fn/bdd/str-section"]}
      """
    And I call "skills::usage"
    Then the keys at "skills.pg/backup" are, in order, "fetched, first_used, last_used, listed, rank_1, read, searched"
    And the result contains:
      """
      {"skills": {"pg/backup": {"listed": 2, "searched": 1, "rank_1": 1, "read": 1, "fetched": 1},
                  "pg/tuning": {"listed": 2, "searched": 1, "rank_2_3": 1}},
       "sections": {"bdd::str-section": {"served": 1}},
       "never_opened": ["pg/tuning"],
       "replicas": 1}
      """
    And the keys at "skills.pg/tuning" are, in order, "first_used, last_used, listed, rank_2_3, searched"
    And the keys at "skills" are, in order, "pg/backup, pg/tuning"
    And the result at "skills.pg/backup.first_used" matches "^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$"
    And the result at "skills.pg/backup.last_used" matches "^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$"
    And the result at "sections.bdd::str-section.last_used" matches "^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$"
    When I call "skills::usage" with:
      """
      {"since": "2000-01-01T00:00:00Z"}
      """
    Then the result contains:
      """
      {"skills": {"pg/backup": {"listed": 2, "searched": 1, "rank_1": 1, "read": 1, "fetched": 1},
                  "pg/tuning": {"listed": 2, "searched": 1, "rank_2_3": 1}},
       "sections": {"bdd::str-section": {"served": 1}},
       "never_opened": ["pg/tuning"]}
      """
    And the result at "counted_since" matches "^\d{4}-\d\d-\d\dT\d\d:00:00\.000000000\+00:00$"
    When I call "skills::usage" with:
      """
      {"since": "2999-01-01T00:30:00+01:00"}
      """
    Then the result at "skills" is {}
    And the result at "sections" is {}
    And the result at "never_opened" is ["pg/backup", "pg/tuning"]
    And the result at "counted_since" is "2998-12-31T23:00:00.000000000+00:00"
    When I call "skills::usage" with:
      """
      {"id": "pg/tuning"}
      """
    Then the keys at "skills" are, in order, "pg/tuning"
    And the result at "never_opened" is ["pg/tuning"]
    And the result at "sections" is {}

  Scenario: with page_size set skills::usage answers a page at a time
    Rows first, then sections, then never_opened (D87, D43).
    Given the worker config has:
      """
      {"page_size": 1}
      """
    And the skills "pg/backup, pg/tuning" are registered
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://pg/backup"}
      """
    And I call "skills::usage"
    Then the keys at "skills" are, in order, "pg/backup"
    And the result at "never_opened" is []
    And I remember the result at "nextCursor" as "next"
    When I call "skills::usage" with:
      """
      {"cursor": {{next}}}
      """
    Then the result at "skills" is {}
    And the result at "never_opened" is ["pg/tuning"]
    And the result has no "nextCursor"

  Scenario Outline: a bad skills::usage request is refused, saying what is allowed
    When I call "skills::usage" with:
      """
      <payload>
      """
    Then the call fails with code "invalid_argument"
    And the error message is "<message>"

    Examples:
      | payload                 | message                                                                                  |
      | {"since": "yesterday"}  | since "yesterday" is not a time; allowed: an RFC 3339 time such as 2026-12-01T00:00:00Z |
      | {"skill": "pg/backup"}  | unknown field "skill" in skills::usage; allowed: since (an RFC 3339 time), id (a skill id), cursor (a nextCursor) |
