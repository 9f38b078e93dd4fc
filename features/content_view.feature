@engine @content_view
Feature: One content view
  Every surface answers from one merged picture of the stored skills, the
  files the globs match and the skill folders under the roots
  (docs/data-path.md#the-content-view): the index, skills::list,
  resources-list, resources-read, skill::search and the MCP Skills
  extension never disagree about a skill. A file is judged changed by its
  stamp (size, mtime, mode, inode, status-change time), so a replacement
  that keeps the size and mtime is a change; a stored SKILL.md's
  frontmatter is read as a file's is; skills::roots::* read only what the
  config names (docs/decisions.md D47, D48).

  Scenario: an in-place edit of a glob file is seen by every surface on the next call
    Given the file "fs-skills/notes.md" contains:
      """
      # Notes

      First.
      """
    And the file "fs-skills/notes.md" was last modified an hour ago
    When I call "skills::list"
    Then the result at "skills.0.bytes" is 15
    When the file "fs-skills/notes.md" contains:
      """
      # Notes v2

      Edited in place, and longer.
      """
    And I call "skills::resources-read" with:
      """
      {"uri": "iii://notes"}
      """
    Then the result text contains "Edited in place, and longer."
    When I call "skills::list"
    Then the result at "skills.0.bytes" is 40
    And the result at "skills.0.sha256" is "6625b6485d8499adcf911ffc632b3e570b1f4f832141b9e8f2d3843f8d18ecf5"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text has the line "- [`notes`](iii://notes) — Notes v2 — Edited in place, and longer."
    And 1 "skills::on-change" event arrives within 3000 ms

  Scenario: a file written in place is on the very next skills::list, with no read before it (D68)
    Given the file "fs-skills/notes.md" contains:
      """
      # Notes
      """
    When I call "skills::list"
    Then the result at "skills.0.bytes" is 7
    When the file "fs-skills/notes.md" contains:
      """
      # Notes, written again in place
      """
    And I call "skills::list"
    Then the result at "skills.0.bytes" is 31

  Scenario: a file replaced with the same size and mtime is a change on every surface
    Given the file "fs-skills/swap.md" contains:
      """
      # Swap

      alpha bravo
      """
    And the file "fs-skills/swap.md" was last modified an hour ago
    When I call "skills::list"
    Then the result at "skills.0.sha256" is "969ad9d786b0825ff67b3255234901fce35328a96ad0f0e6e17722f6e45a45cc"
    When I call "skill::search" with:
      """
      {"query": "bravo"}
      """
    Then the result at "results.0.id" is "swap"
    When the file "fs-skills/swap.md" is replaced by a file of the same size and modification time:
      """
      # Swap

      gamma delta
      """
    Then 1 "skills::on-change" event arrives within 3000 ms
    And the "skills::on-change" events are:
      """
      [{"op": "register", "id": "swap", "source": "fs"}]
      """
    When I call "skills::list"
    Then the result at "skills.0.sha256" is "b8efa415ee17614d542c97c73e139f08daa8292d5156d8f9194c258f3d49dfcc"
    And the result at "skills.0.bytes" is 19
    When I call "skill::search" with:
      """
      {"query": "gamma"}
      """
    Then the result at "results.0.id" is "swap"
    When I call "skill::search" with:
      """
      {"query": "bravo"}
      """
    Then the result at "results" has 0 items

  Scenario: a SKILL.md registered over the bus is indexed by its frontmatter and read verbatim
    Given the skill "stripe-integration" is registered with body:
      """
      ---
      name: stripe-integration
      description: Implement Stripe payments, subscriptions and webhooks.
      ---
      # Stripe

      Start with a PaymentIntent.
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text has the line "- [`stripe-integration`](iii://stripe-integration) — Stripe — Implement Stripe payments, subscriptions and webhooks."
    And the result text does not contain "name: stripe-integration"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://stripe-integration"}
      """
    Then the result text starts with "---\nname: stripe-integration\ndescription: Implement Stripe"
    When I call "skill::search" with:
      """
      {"query": "webhooks"}
      """
    Then the result at "results.0.id" is "stripe-integration"
    And the result at "results.0.title" is "Stripe"
    And the result at "results.0.description" is "Implement Stripe payments, subscriptions and webhooks."

  Scenario: skills::roots::index reads only inside the roots the config names
    Given the worker config has:
      """
      {"roots": ["fs-roots/first"]}
      """
    And the file "fs-roots/first/pdf/SKILL.md" contains:
      """
      ---
      name: pdf
      description: Fill PDF forms.
      ---
      # PDF
      """
    And the file "elsewhere/secret/SKILL.md" contains:
      """
      ---
      name: secret
      description: Private notes of another project.
      ---
      # Secret
      """
    When I call "skills::roots::index" with:
      """
      {"roots": ["{dir}/elsewhere"]}
      """
    Then the call fails with code "forbidden"
    And the error message contains "root "{dir}/elsewhere" is outside the roots this worker reads; allowed: folders inside {dir}/fs-roots/first"
    When I call "skills::roots::index" with:
      """
      {"roots": ["{dir}/fs-roots/first"]}
      """
    Then the result at "count" is 1

  Scenario: skills::roots::rescan never changes the roots other callers see
    Given the worker config has:
      """
      {"roots": ["fs-roots/first"]}
      """
    And the file "fs-roots/first/pdf/SKILL.md" contains:
      """
      ---
      name: pdf
      description: Fill PDF forms.
      ---
      # PDF
      """
    And the file "elsewhere/secret/SKILL.md" contains:
      """
      ---
      name: secret
      description: Private notes of another project.
      ---
      # Secret
      """
    When I call "skills::roots::rescan" with:
      """
      {"roots": ["{dir}/elsewhere"]}
      """
    Then the call fails with code "forbidden"
    When I call "skills::roots::index"
    Then the result at "count" is 1
    And the result at "skills.0.id" is "pdf"
