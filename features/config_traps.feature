@config_traps
Feature: No config trap
  A config mistake is reported where it is, with what is allowed, and
  costs only what it touches (docs/decisions.md D66): a bad value keeps its
  own key at the default, a glob or root that finds nothing is a warning,
  skills doctor says when skills dev would serve more than it checked, and
  two processes never share a data directory.

  Scenario: a bad value keeps its own key at the default, and the rest of the config applies
    Given the file "fs-skills/alpha.md" contains:
      """
      # Alpha
      """
    And the worker config has:
      """
      {"state_timeout_ms": "10s"}
      """
    When I call "skills::list"
    Then the result at "skills" has 1 item
    And the worker output contains "`state_timeout_ms` must be a whole number of milliseconds from 1 to 9223372036854, got str \"10s\"; `state_timeout_ms` keeps its default"
    When I call "skills::diagnostics"
    Then the result at "config_problems.0.key" is "state_timeout_ms"

  Scenario: a glob that matches nothing is a warning in the boot log and in skills::diagnostics
    Given the file "fs-skills/alpha.md" contains:
      """
      # Alpha
      """
    And the worker config has:
      """
      {"skills": ["fs-skills/**/*.md", "{dir}/nowhere/*.md"], "prompts": []}
      """
    When I call "skills::diagnostics"
    Then the result at "unmatched" has 1 item
    And the result at "unmatched.0.entry" is "{dir}/nowhere/*.md"
    And the worker output contains "glob or root finds nothing: the skills glob \"{dir}/nowhere/*.md\" matches nothing"

  Scenario: skills doctor without --dev says when skills dev would serve skills it did not check
    Given the file "config.yaml" contains:
      """
      skills: []
      """
    And the file "skills/pdf/SKILL.md" contains:
      """
      ---
      name: pdf
      description: Fill PDF forms.
      ---
      # PDF
      """
    When I run the binary in the scenario's folder with "doctor"
    Then the binary exits with code 0
    And the binary's error output contains "skills dev would also serve"
    And the binary's error output contains "{dir}/skills"
    And the binary's error output contains "run skills doctor --dev"
    When I run the binary in the scenario's folder with "doctor --dev"
    Then the binary exits with code 0
    And the binary's error output does not contain "skills dev would also serve"

  Scenario: a second process on a data directory in use refuses, naming the holder
    Given a local engine keeps its state in "data"
    When I run the binary with "dev --port 0 --data {dir}/data --config {dir}/none.yaml"
    Then the binary exits with code 1
    And the binary's error output contains "the data directory {dir}/data is in use by another process (pid {{holder_pid}}: "
    And the binary's error output contains "give this one another directory with --data"
    When that engine is killed with SIGKILL
    Then a local engine keeps its state in "data"
