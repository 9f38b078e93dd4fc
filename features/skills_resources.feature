@engine @skills_resources
Feature: Skill resources for the mcp worker
  skills::resources-list, -templates and -read produce the MCP envelopes the
  mcp worker forwards verbatim; iii://skills is the index, iii://{id} a body
  and iii://fn/{a}/{b} the output of the function a::b.

  Scenario: resources-list exposes the iii://skills index and every registered skill, with its title, description, size and time (D41)
    Given the skill "alpha" is registered
    And the skill "beta" is registered with body:
      """
      # Beta title

      Beta body.
      """
    When I call "skills::resources-list"
    Then the result at "resources" has 3 items
    And the result at "resources.0" is {"uri": "iii://skills", "name": "skills", "description": "Index of every registered skill", "mimeType": "text/markdown"}
    And the result at "resources.1.description" is "Body of alpha."
    And the result at "resources.1.uri" is "iii://alpha"
    And the result at "resources.1.name" is "alpha"
    And the result at "resources.1.title" is "alpha"
    And the result at "resources.2.uri" is "iii://beta"
    And the result at "resources.2.name" is "Beta title"
    And the result at "resources.2.description" is "Beta body."
    And the result at "resources.2.mimeType" is "text/markdown"
    And the result at "resources.2.size" is 24
    And the result at "resources.2.annotations.lastModified" matches "^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}\+00:00$"

  Scenario: skills::list rows carry what reading costs and a digest (D41)
    Given the skill "sized" is registered with body:
      """
      # Sized

      Twelve bytes.
      """
    And the file "fs-skills/on-disk.md" contains:
      """
      # On disk
      """
    When I call "skills::list"
    Then the result at "skills.1.id" is "sized"
    And the result at "skills.1.bytes" is 22
    And the result at "skills.1.tokens" is 6
    And the result at "skills.1.sha256" is "a7311a0b37f92c32691986202c877742878036ef268da476ddbe71ff9774c065"
    And the result at "skills.0.id" is "on-disk"
    And the result at "skills.0.tokens" is 3
    And the result at "skills.0.sha256" matches "^[0-9a-f]{64}$"

  Scenario: resources-templates returns the two URI templates
    When I call "skills::resources-templates"
    Then the result at "resourceTemplates" has 2 items
    And the result is:
      """
      {"resourceTemplates": [
        {"uriTemplate": "iii://{skill_id}", "name": "Skill", "mimeType": "text/markdown",
         "description": "Markdown body of a registered skill (1+ segments separated by '/')"},
        {"uriTemplate": "iii://fn/{function_path}", "name": "Skill section", "mimeType": "text/markdown",
         "description": "Trigger the function at `function_path` (each '/' becomes '::') with empty input and serve its output. e.g. `iii://fn/scope/echo` triggers `scope::echo`."}
      ]}
      """

  Scenario: iii://skills renders a markdown index with title and description
    Given the skill "alpha" is registered with body:
      """
      # Alpha

      Alpha sends email.
      It also tracks bounces.

      ## Details

      Not part of the description.
      """
    And the skill "beta" is registered with body:
      """
      No heading here, only text.
      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result at "contents.0.mimeType" is "text/markdown"
    And the result at "contents.0.uri" is "iii://skills"
    And the result text is:
      """
      # Skills

      Read each skill's resource for orientation on when and why to call its functions. Sub-skills are indented under their parent path so a top-level skill stays small and the LLM can drill in only when it needs more detail.

      - [`alpha`](iii://alpha) — Alpha — Alpha sends email. It also tracks bounces.
      - [`beta`](iii://beta) — beta — No heading here, only text.

      """

  Scenario: iii://{id} returns the registered body as text/markdown
    Given the skill "alpha" is registered with body:
      """
      # Alpha

      Body of alpha.

      """
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://alpha"}
      """
    Then the result is:
      """
      {"contents": [{"uri": "iii://alpha", "mimeType": "text/markdown", "text": "# Alpha\n\nBody of alpha.\n"}]}
      """

  Scenario: iii://fn/{...} returning a markdown string is served as text/markdown
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/bdd/str-section"}
      """
    Then the result is:
      """
      {"contents": [{"uri": "iii://fn/bdd/str-section", "mimeType": "text/markdown",
                     "text": "# String section\n\nstr-section body, returned as a plain string.\n"}]}
      """

  Scenario: iii://fn/{...} returning {content} is served as text/markdown
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/bdd/content-section"}
      """
    Then the result at "contents.0.mimeType" is "text/markdown"
    And the result text is:
      """
      # Wrapped section

      wrapped in {content}.

      """

  Scenario: iii://fn/{...} returning arbitrary JSON falls back to application/json
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/bdd/json-section"}
      """
    Then the result at "contents.0.mimeType" is "application/json"
    And the result text is:
      """
      {
        "count": 2,
        "items": [
          "a",
          "b"
        ]
      }
      """

  Scenario: the section resolver refuses state:: as a function id
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/state/set"}
      """
    Then the call fails with code "forbidden"
    And the error message is "Function 'state::set' is in an internal namespace and cannot back a skill resource"

  Scenario: the section resolver refuses mcp:: as a function id
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/mcp/handler"}
      """
    Then the call fails with code "forbidden"
    And the error message is "Function 'mcp::handler' is in an internal namespace and cannot back a skill resource"

  Scenario: the section resolver refuses skills:: to block tunnelling into the admin API
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/skills/register"}
      """
    Then the call fails with code "forbidden"
    And the error message is "Function 'skills::register' is in an internal namespace and cannot back a skill resource"

  Scenario: the section resolver refuses prompts:: as a function id
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/prompts/register"}
      """
    Then the call fails with code "forbidden"
    And the error message is "Function 'prompts::register' is in an internal namespace and cannot back a skill resource"

  Scenario: a URI without the iii:// prefix is rejected
    When I call "skills::resources-read" with:
      """
      {"uri": "brain"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Resource URI must start with iii://: brain"

  Scenario: iii://fn alone (no function path after the prefix) is rejected
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Section URI 'iii://fn' is missing a function path: expected iii://fn/{a}/{b}/...: iii://fn"

  Scenario: iii://fn/ (trailing slash) is rejected
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://fn/"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Resource URI may not contain empty segments (no leading, trailing, or doubled '/'): iii://fn/"

  Scenario: reading an unknown skill returns a not-found error
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://ghost"}
      """
    Then the call fails with code "not_found"
    And the error message is "Skill not found: ghost"

  Scenario: reading an unknown deep skill returns a not-found error
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://no-parent/no-child"}
      """
    Then the call fails with code "not_found"
    And the error message is "Skill not found: no-parent/no-child"
