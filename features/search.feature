@engine @search
Feature: Searching the skills
  skill::search (docs/decisions.md D40) ranks every skill the registry
  serves (registered, from globs, from roots) for a need in words: id, uri,
  title, description, score and the tokens its body costs, best first. It
  sees every change on the next call. MCP clients see it as skill__search.

  Scenario: the best match comes first, from state and from files alike
    Given the skill "pg/backup" is registered with body:
      """
      # Postgres backups

      Take a base backup with pg_basebackup and keep the WAL archive.
      """
    And the skill "pg/tuning" is registered with body:
      """
      # Postgres tuning

      Read EXPLAIN ANALYZE output and add the missing index.
      """
    And the file "fs-skills/mysql/backup.md" contains:
      """
      # MySQL backups

      Dump the schema with mysqldump every night.
      """
    When I call "skill::search" with:
      """
      {"query": "how do I take a postgres backup?"}
      """
    Then the result at "total" is 3
    And the result at "results.0.id" is "pg/backup"
    And the result at "results.0.uri" is "iii://pg/backup"
    And the result at "results.0.title" is "Postgres backups"
    And the result at "results.0.description" is "Take a base backup with pg_basebackup and keep the WAL archive."
    And the result at "results.0.tokens" is 21
    When I call "skill::search" with:
      """
      {"query": "nightly mysqldump", "limit": 1}
      """
    Then the result at "results" has 1 item
    And the result at "results.0.id" is "mysql/backup"

  Scenario: a registration and an unregistration are searchable on the very next call
    Given the skill "billing/invoices" is registered with body:
      """
      # Invoices

      Send the quarterly invoices.
      """
    When I call "skill::search" with:
      """
      {"query": "quarterly invoices"}
      """
    Then the result at "results.0.id" is "billing/invoices"
    When I call "skills::unregister" with:
      """
      {"id": "billing/invoices"}
      """
    And I call "skill::search" with:
      """
      {"query": "quarterly invoices"}
      """
    Then the result is:
      """
      {"results": [], "total": 0}
      """

  Scenario: max_tokens drops results from the end until the response fits
    Given the skill "a/one" is registered with body:
      """
      # Deploy one

      Deploy the service.
      """
    And the skill "a/two" is registered with body:
      """
      # Deploy two

      Deploy the other service.
      """
    When I call "skill::search" with:
      """
      {"query": "deploy service", "max_tokens": 60}
      """
    Then the result at "results" has 1 item
    And the result at "total" is 2

  Scenario: a reference is listed under its skill, and group false ranks documents
    Given the skill "terraform" is registered with body:
      """
      # Terraform

      Plan and apply infrastructure.
      """
    And the skill "terraform/references/lock" is registered with body:
      """
      # State locking

      A stale state lock blocks every apply; force-unlock it.
      """
    When I call "skill::search" with:
      """
      {"query": "stale state lock"}
      """
    Then the result at "total" is 1
    And the result at "results.0.id" is "terraform"
    And the result at "results.0.matched.0.id" is "terraform/references/lock"
    And the result at "results.0.matched.0.title" is "State locking"
    When I call "skill::search" with:
      """
      {"query": "stale state lock", "group": false}
      """
    Then the result at "results.0.id" is "terraform/references/lock"

  Scenario Outline: a request search cannot use is invalid_argument, saying what is allowed
    Given the skill "any" is registered
    When I call "skill::search" with:
      """
      <payload>
      """
    Then the call fails with code "invalid_argument"
    And the error message contains "<message>"

    Examples:
      | payload                                   | message                                                      |
      | {}                                        | missing field `query`                                        |
      | {"query": "   "}                          | at least one character that is not a space                   |
      | {"query": "{big:1001}"}                   | is 1001 characters; at most 1000                             |
      | {"query": "ring\u0007bell"}               | may not hold control characters (U+0007 at character 5)      |
      | {"query": "x", "limit": 0}                | `limit` must be a whole number from 1 to 50 (default 8), got 0 |
      | {"query": "x", "limit": 51}               | got 51                                                       |
      | {"query": "x", "limit": "x"}              | must be a whole number from 1 to 50                          |
      | {"query": "x", "max_tokens": -1}          | `max_tokens` must be a whole number of tokens from 1         |
      | {"query": "x", "group": 1}                | `group` must be true                                         |

  Scenario: an agent finds the right skill of the evaluation corpus in one call of skills call
    Given the worker config has:
      """
      {"roots": ["{repo}/internal/search/testdata/corpus/skills"]}
      """
    And the skill "any" is registered
    When I run the binary with "call skill::search query=replay_WAL_to_14:31:59_UTC_then_pause_before_promoting --url {engine_url}"
    Then the binary exits with code 0
    And the result at "results.0.id" is "postgres-pitr"
    When I call "skill::fetch" with:
      """
      {"uri": "iii://postgres-pitr"}
      """
    Then the result text contains "recovery_target_inclusive"
