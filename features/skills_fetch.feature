@engine @skills_fetch
Feature: Batched fetch of iii:// resources
  skills::fetch_skill and its public alias skill::fetch read one or more
  iii:// URIs and return one markdown string: "# <uri>\n\n<text>" per URI,
  joined by "\n\n---\n\n".

  Background:
    Given the skills "alpha, beta" are registered

  Scenario: skills::fetch_skill with a single uri returns the body wrapped under the URI heading
    When I call "skills::fetch_skill" with:
      """
      {"uri": "iii://alpha"}
      """
    Then the result text has 1 section
    And the result text is:
      """
      # iii://alpha

      # alpha

      Body of alpha.
      """

  Scenario: skills::fetch_skill with a uris array concatenates sections separated by ---
    When I call "skills::fetch_skill" with:
      """
      {"uris": ["iii://alpha", "iii://beta"]}
      """
    Then the result text has 2 sections
    And the result text is:
      """
      # iii://alpha

      # alpha

      Body of alpha.

      ---

      # iii://beta

      # beta

      Body of beta.
      """

  Scenario: skill::fetch alias returns identical output to skills::fetch_skill
    When I call "skills::fetch_skill" with:
      """
      {"uris": ["iii://alpha", "iii://beta"]}
      """
    And I remember the result at "" as "canonical"
    And I call "skill::fetch" with:
      """
      {"uris": ["iii://alpha", "iii://beta"]}
      """
    Then the result text has 2 sections
    And the result is {{canonical}}

  Scenario: uris takes precedence over uri when both are provided
    When I call "skills::fetch_skill" with:
      """
      {"uri": "iii://alpha", "uris": ["iii://beta"]}
      """
    Then the result text has 1 section
    And the result text starts with "# iii://beta\n\n# beta"
    And the result text does not contain "alpha"

  Scenario: missing uri and uris fields returns a validation error
    When I call "skills::fetch_skill" with:
      """
      {}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Provide uri or a non-empty uris array"

  Scenario: a non-iii:// URI is rejected
    When I call "skills::fetch_skill" with:
      """
      {"uri": "https://example.com"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Invalid URI (must start with iii://): https://example.com"

  Scenario: a blank uri string is rejected
    When I call "skills::fetch_skill" with:
      """
      {"uri": "   "}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Provide uri or a non-empty uris array"

  Scenario: an unknown iii:// id surfaces a not-found error
    When I call "skills::fetch_skill" with:
      """
      {"uris": ["iii://alpha", "iii://does-not-exist"]}
      """
    Then the call fails with code "not_found"
    And the error message is "Skill not found: does-not-exist"

  Scenario: skill::fetch surfaces the same validation error as skills::fetch_skill
    When I call "skill::fetch" with:
      """
      {}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Provide uri or a non-empty uris array"
