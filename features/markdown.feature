@pure @markdown
Feature: Pure helpers of the registry
  Title and description extraction, URI parsing, id and name validation and
  output normalisation, evaluated in-process without an engine.

  Scenario: extract_title picks up the first H1
    When I evaluate "title" on:
      """
      Intro text.

      # my skill

      # second heading
      """
    Then the result is "my skill"

  Scenario: extract_title ignores H2 headings
    When I evaluate "title" on:
      """
      ## not a title
      #also not
      body
      """
    Then the result is null

  Scenario: extract_description grabs the first paragraph
    When I evaluate "description" on:
      """
      # Title

      First line of the paragraph
        continues here.

      Second paragraph.
      """
    Then the result is "First line of the paragraph continues here."

  Scenario: extract_description skips subheadings before finding text
    When I evaluate "description" on:
      """
      # Title
      ## Sub
      ### Subsub

      Text under the headings.
      """
    Then the result is "Text under the headings."

  Scenario: extract_description returns nothing for heading-only docs
    When I evaluate "description" on:
      """
      # Title

      ## Only headings
      """
    Then the result is null

  Scenario: truncate_chars keeps multibyte characters intact
    When I evaluate "truncate:5" on "héllo wörld"
    Then the result is "héllo..."
    And the result text has 8 characters

  Scenario: parse_uri returns Index for iii://skills
    When I evaluate "parse_uri" on "iii://skills"
    Then the result at "kind" is "index"

  Scenario: parse_uri returns Skill for iii://brain
    When I evaluate "parse_uri" on "iii://brain"
    Then the result contains:
      """
      {"kind": "skill", "key": "brain"}
      """

  Scenario: parse_uri returns Skill for nested iii://parent/sub
    When I evaluate "parse_uri" on "iii://parent/sub"
    Then the result contains:
      """
      {"kind": "skill", "key": "parent/sub"}
      """

  Scenario: parse_uri returns Skill for arbitrarily deep paths
    When I evaluate "parse_uri" on "iii://a/b/c/d/e"
    Then the result contains:
      """
      {"kind": "skill", "key": "a/b/c/d/e"}
      """

  Scenario: parse_uri returns Section for iii://fn/{single}
    When I evaluate "parse_uri" on "iii://fn/echo"
    Then the result contains:
      """
      {"kind": "section", "function_id": "echo"}
      """

  Scenario: parse_uri returns Section for iii://fn/{a}/{b} joining with ::
    When I evaluate "parse_uri" on "iii://fn/scope/echo"
    Then the result contains:
      """
      {"kind": "section", "function_id": "scope::echo"}
      """

  Scenario: parse_uri returns Section for deep iii://fn/{...}
    When I evaluate "parse_uri" on "iii://fn/resend/email/send"
    Then the result contains:
      """
      {"kind": "section", "function_id": "resend::email::send"}
      """

  Scenario: parse_uri rejects a missing scheme
    When I evaluate "parse_uri" on "brain"
    Then it fails with code "invalid_argument"
    And the error message is "Resource URI must start with iii://: brain"

  Scenario: parse_uri rejects iii://fn alone (no function path)
    When I evaluate "parse_uri" on "iii://fn"
    Then it fails with code "invalid_argument"
    And the error message contains "missing a function path"

  Scenario: parse_uri rejects empty segments anywhere
    When I evaluate "parse_uri" on "iii://a//b"
    Then it fails with code "invalid_argument"
    And the error message is "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://a//b"

  Scenario: validate_id accepts kebab / underscore lowercase
    When I evaluate "validate_id" on "my-skill_1"
    Then it succeeds

  Scenario: validate_id rejects uppercase
    When I evaluate "validate_id" on "MySkill"
    Then it fails
    And the error message contains "lowercase"

  Scenario: validate_id rejects 65-char ids
    When I evaluate "validate_id" on "{big:65}"
    Then it fails
    And the error message contains "too long (65 chars; max 64)"

  Scenario: validate_name accepts kebab / underscore
    When I evaluate "validate_name" on "send-email"
    Then it succeeds

  Scenario: validate_name rejects :: in the name
    When I evaluate "validate_name" on "mcp::send"
    Then it fails
    And the error message is "name may only contain lowercase ASCII letters, digits, '-' and '_': "mcp::send""

  Scenario: validate_arguments rejects duplicates
    When I evaluate "validate_arguments" on:
      """
      [{"name": "a"}, {"name": "b"}, {"name": "a"}]
      """
    Then it fails with code "invalid_argument"
    And the error message is "duplicate argument name: a"

  Scenario: validate_arguments rejects empty names
    When I evaluate "validate_arguments" on:
      """
      [{"name": "a"}, {"name": " "}]
      """
    Then it fails with code "invalid_argument"
    And the error message is "argument name must be non-empty"

  Scenario: normalize_function_output string -> markdown
    When I evaluate "section_output" on:
      """
      "hello"
      """
    Then the result is:
      """
      {"mimeType": "text/markdown", "text": "hello"}
      """

  Scenario: normalize_function_output {content} -> markdown
    When I evaluate "section_output" on:
      """
      {"content": "hi", "other": 1}
      """
    Then the result is:
      """
      {"mimeType": "text/markdown", "text": "hi"}
      """

  Scenario: normalize_function_output other -> JSON
    When I evaluate "section_output" on:
      """
      {"x": 1, "content": 5}
      """
    Then the result at "mimeType" is "application/json"
    And the result at "text" is "{\n  \"content\": 5,\n  \"x\": 1\n}"

  Scenario: normalize_prompt_output string -> single user message
    When I evaluate "prompt_output" on:
      """
      "hello"
      """
    Then the result is:
      """
      [{"role": "user", "content": {"type": "text", "text": "hello"}}]
      """

  Scenario: normalize_prompt_output messages -> pass-through
    When I evaluate "prompt_output" on:
      """
      {"messages": [{"role": "user", "content": {"type": "text", "text": "a"}},
                    {"role": "assistant", "content": {"type": "text", "text": "b"}}],
       "content": "ignored: messages win"}
      """
    Then the result has 2 items
    And the result at "1.role" is "assistant"

  Scenario: normalize_prompt_output unsupported shape fails
    When I evaluate "prompt_output" on:
      """
      {"content": 5}
      """
    Then it fails
    And the error message contains "unsupported shape"

  Scenario Outline: infra namespaces are hard-floored
    When I evaluate "internal_namespace" on "<function_id>"
    Then the result is true

    Examples:
      | function_id       |
      | state::get        |
      | engine::workers   |
      | stream::publish   |
      | iii.on_foo        |
      | iii::internal     |
      | mcp::handler      |
      | a2a::send         |
      | skills::register  |
      | prompts::register |

  Scenario Outline: ordinary namespaces are not hard-floored
    When I evaluate "internal_namespace" on "<function_id>"
    Then the result is false

    Examples:
      | function_id       |
      | mem::observe      |
      | brain::summarize  |
      | my-worker::my-fn  |
      | skill::fetch      |
