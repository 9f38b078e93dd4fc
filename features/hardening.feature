@engine @hardening
Feature: Hostile files, oversized requests and bad handler output
  The worker reads files an attacker may have placed under a glob, and
  answers requests an attacker may have crafted. Each case below gets a
  skip reason or an error that says what was wrong and what is allowed;
  the worker stays connected and its state is unchanged
  (docs/decisions.md D24-D29).

  Scenario: a symlink that leaves its glob's root is not served
    Given the file "outside/secret.md" contains:
      """
      # Secret

      API_KEY=hunter2
      """
    And the file "fs-skills/ok.md" contains:
      """
      # Ok
      """
    And the symlink "fs-skills/leak.md" points to "outside/secret.md"
    When I call "skills::list"
    Then the result at "skills" has 1 item
    And the result at "skills.0.id" is "ok"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://leak"}
      """
    Then the call fails with code "not_found"
    And the worker output contains "fs-skills/leak.md points to {dir}/outside/secret.md, outside {dir}/fs-skills"
    And the worker output contains "add a parent directory of the target to allow_paths to serve it"

  Scenario: allow_paths lets a link reach a directory outside the root
    Given the worker config has:
      """
      {"allow_paths": ["outside"]}
      """
    And the file "outside/shared.md" contains:
      """
      # Shared

      Kept outside, allowed on purpose.
      """
    And the symlink "fs-skills/shared.md" points to "outside/shared.md"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://shared"}
      """
    Then the result text is:
      """
      # Shared

      Kept outside, allowed on purpose.
      """

  Scenario: a symlink that stays inside the root is followed
    Given the file "fs-skills/real/guide.md" contains:
      """
      # Guide
      """
    And the symlink "fs-skills/alias.md" points to "fs-skills/real/guide.md"
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://alias"}
      """
    Then the result text is:
      """
      # Guide
      """

  Scenario: a named pipe under a glob is skipped with a reason and hangs nothing
    Given the file "fs-skills/ok.md" contains:
      """
      # Ok
      """
    And the named pipe "fs-skills/pipe.md" exists
    When I call "skills::list"
    Then the result at "skills" has 1 item
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text contains "[`ok`](iii://ok)"
    And the result text does not contain "iii://pipe"
    And the worker output contains "fs-skills/pipe.md is a named pipe (FIFO); only regular files are served"

  Scenario: a directory symlink loop is walked once, with a reason
    Given the file "fs-skills/loop/ok.md" contains:
      """
      # Ok
      """
    And the symlink "fs-skills/loop/again" points to "fs-skills/loop"
    And the symlink "fs-skills/loop/twice" points to "fs-skills"
    When I call "skills::list"
    Then the result at "skills" has 1 item
    And the result at "skills.0.id" is "loop/ok"
    And the worker output contains "is a symbolic link loop"

  Scenario: a fetch over the response budget is refused, and the worker stays up
    Given the worker config has:
      """
      {"max_response_bytes": 2048}
      """
    And the skill "big" is registered with body:
      """
      # Big

      {big:900}
      """
    When I call "skill::fetch" with:
      """
      {"uris": ["iii://big", "iii://big", "iii://big"]}
      """
    Then the call fails with code "invalid_argument"
    And the error message starts with "skill::fetch response would exceed 2 KiB (at least "
    And the error message contains "for 3 uris, 1 distinct); fetch fewer uris"
    When I call "skill::fetch" with:
      """
      {"uris": ["iii://big", "iii://big"]}
      """
    Then the result text has 2 sections

  Scenario: an index over the response budget is cut with a note
    Given the worker config has:
      """
      {"max_response_bytes": 1024}
      """
    And the skills "alpha, beta, gamma, delta, epsilon, zeta, eta, theta, iota, kappa, lambda, mu, nu, xi, omicron, pi, rho, sigma, tau, upsilon, phi, chi, psi, omega" are registered
    When I call "skills::resources-read" with:
      """
      {"uri": "iii://skills"}
      """
    Then the result text contains "[`alpha`](iii://alpha)"
    And the result text does not contain "[`zeta`](iii://zeta)"
    And the result text has the line "_15 more skills are not listed: this index is cut at the worker's response budget (max_response_bytes, 1024 bytes). List every id with the skills::list function, then read iii://{id}._"

  Scenario: an error quotes at most 200 characters of a huge uri
    When I call "skills::resources-read" with:
      """
      {"uri": "http://{big:100000}"}
      """
    Then the call fails with code "invalid_argument"
    And the error message is "Resource URI must start with iii://: http://{big:193}… (100007 bytes)"

  Scenario: a prompt handler's system role is refused with the field named
    When I call "prompts::register" with:
      """
      {"name": "sys", "description": "bdd prompt", "function_id": "bdd::prompt-system-role"}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "sys"}
      """
    Then the call fails with code "unavailable"
    And the error message is "prompt handler bdd::prompt-system-role returned messages[0].role "system"; allowed: user, assistant"

  Scenario: a prompt handler's string content becomes a text content
    When I call "prompts::register" with:
      """
      {"name": "plain", "description": "bdd prompt", "function_id": "bdd::prompt-string-content"}
      """
    And I call "prompts::mcp-get" with:
      """
      {"name": "plain"}
      """
    Then the result is:
      """
      {"description": "bdd prompt", "messages": [{"role": "assistant", "content": {"type": "text", "text": "plain"}}]}
      """
