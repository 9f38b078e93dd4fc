@engine @budget
Feature: An index that fits a context window
  With index_max_tokens set (docs/decisions.md D44), iii://skills folds its
  deepest level first into one line per parent that says how many entries it
  holds and how to reach them, until the index fits; the top level is never
  dropped without a line that counts what is left out.

  Scenario: nested skills fold into a line per parent; the top level stays
    Given the worker config has:
      """
      {"index_max_tokens": 110}
      """
    And the skills "acme, acme/billing, acme/billing/refunds, acme/onboarding, beta" are registered
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text has the line "- [`acme`](iii://acme) — acme — Body of acme."
    And the result text has the line "  - (+3 nested — read iii://acme or use skill__search)"
    And the result text has the line "- [`beta`](iii://beta) — beta — Body of beta."
    And the result text does not contain "acme/billing/refunds`"
    And the result text has at most 440 characters

  Scenario: a top level too big for the budget ends with a line counting what is left out
    Given the worker config has:
      """
      {"index_max_tokens": 120}
      """
    And the skills "alpha, beta, gamma, delta, epsilon" are registered
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text contains "more skills are not listed: this index is cut to index_max_tokens (120). Find skills with skill__search, or list every id with skills::list."
    And the result text has the line "- [`alpha`](iii://alpha) — alpha — Body of alpha."
