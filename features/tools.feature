@engine @tools
Feature: Typed tools from SKILL.md
  With tools.enabled, the tools of a SKILL.md on disk (a level-3 block with a
  Command subsection) are served as the functions <skill>::<tool> while the
  file's sha256 is approved in tools.lock (docs/decisions.md D34–D39).
  Commands run with no shell: each value is one argument, whatever it holds;
  the environment is filtered; a timeout stops the whole process group;
  output is kept to its head and tail.

  Background:
    Given the worker config has:
      """
      {"roots": ["fs-roots"], "tools": {"enabled": true, "env_allow": ["BDD_*"]}}
      """
    And the file "fs-roots/demo/SKILL.md" contains:
      """
      ---
      name: demo
      version: 1.0.0
      description: Tools for the behaviour suite.
      read_only: true
      timeout: 1
      ---
      # Demo

      ### show

      Print each argument between angle brackets.

      #### Parameters

      | Name | Type | Required | Description | Default |
      |------|------|----------|-------------|---------|
      | text | string | yes | Any text. | |
      | count | integer | no | A number. | 3 |
      | loud | boolean | no | Add a flag. | |
      | tags | array | no | Several words. | |

      #### Command

      ```bash
      printf '<%s>\n' {{text}} {{count}} {{loud:--loud}} {{tags}}
      ```

      ### env

      Print the environment.

      #### Parameters

      None.

      #### Command

      ```bash
      env
      ```

      ### fail

      Fail with exit code 3.

      #### Command

      ```bash
      sh -c "echo oops; exit 3"
      ```

      ### json

      Print a JSON object.

      #### Command

      ```bash
      printf '{"ok": true, "n": 5}'
      ```

      ### big

      Print 100 KB.

      #### Command

      ```bash
      sh -c "yes 0123456789 | head -c 102400"
      ```

      ### hang

      Start a grandchild and wait for ever.

      #### Parameters

      | Name | Type | Required | Description |
      |------|------|----------|-------------|
      | pidfile | string | yes | Where to write the grandchild's pid. |

      #### Command

      ```bash
      sh -c "sleep 60 & echo $! > $1; wait" hang {{pidfile}}
      ```

      ### leave

      Leave a process behind in a session of its own, and return.

      #### Parameters

      | Name | Type | Required | Description |
      |------|------|----------|-------------|
      | pidfile | string | yes | Where to write its pid. |

      #### Command

      ```bash
      sh -c "setsid sleep 60 & echo $! > $1" leave {{pidfile}}
      ```

      ### creds

      Print the variables that hold credentials, if the command has them.

      #### Command

      ```bash
      sh -c 'echo "[$BDD_VISIBLE|$PGPASSWORD|$DATABASE_URL|$SSH_AUTH_SOCK|$UPSTREAM|$GH_TOKEN]"'
      ```

      ### sort

      Sort the lines of a file.

      #### Parameters

      | Name | Type | Required | Description |
      |------|------|----------|-------------|
      | file | string | yes | The file. |

      #### Command

      ```bash
      sort {{file}}
      ```
      """

  Scenario: an approved tool runs its command with each value as one literal argument
    Given I approve the tools of "demo"
    And the engine lists the function "demo::show"
    When I call "demo::show" with:
      """
      {"text": "a b; rm -rf / | cat $HOME > 'out' \"q\"", "loud": true, "tags": ["x y", "*"]}
      """
    Then the result at "success" is true
    And the result at "exit_code" is 0
    And the result at "output" is "<a b; rm -rf / | cat $HOME > 'out' \"q\">\n<3>\n<--loud>\n<x y>\n<*>\n"
    And the result at "truncated" is false
    When I call "demo::show" with:
      """
      {"text": "t", "count": 7, "loud": false}
      """
    Then the result at "output" is "<t>\n<7>\n"
    When I run the binary with "call demo::show text=from-the-cli count:=9 --url {engine_url}"
    Then the binary exits with code 0
    And the result at "output" is "<from-the-cli>\n<9>\n"
    When I call "demo::show" with:
      """
      {"count": "seven"}
      """
    Then the call fails with code "invalid_argument"
    And the error message starts with "parameter count: got a string"
    And the error message contains "want an integer"
    When I call "demo::show" with:
      """
      {"count": 1}
      """
    Then the error message starts with "missing required parameter text (string)"
    When I call "demo::show" with:
      """
      {"text": "t", "program": "rm"}
      """
    Then the error message starts with "unknown parameter"
    And the error message contains "the parameters are text, count, loud, tags"

  Scenario: the environment holds only what is passed and allowed, never credentials
    Given I approve the tools of "demo"
    And I start the worker with:
      """
      {"args": ["--url", "{engine_url}", "--config", "{config}"],
       "env": {"BDD_VISIBLE": "yes", "BDD_TOKEN": "t0ken", "GITHUB_TOKEN": "gh", "AWS_REGION": "eu", "OPENAI_API_KEY": "sk", "UNLISTED": "no"}}
      """
    And the worker serves
    And the engine lists the function "demo::env"
    When I call "demo::env"
    Then the result at "output" matches "(^|\n)BDD_VISIBLE=yes\n"
    And the result at "output" matches "(^|\n)SKILL_NAME=demo\n"
    And the result at "output" matches "(^|\n)SKILL_DIR=\S+/fs-roots/demo\n"
    And the result at "output" matches "^((HOME|LANG|LC_\w+|PATH|TERM|TZ|USER|BDD_VISIBLE|SKILL_NAME|SKILL_DIR)=[^\n]*\n)+$"

  Scenario: with every variable allowed, credentials still stay out, unless named exactly
    Given the worker config has:
      """
      {"tools": {"enabled": true, "env_allow": ["*", "PGPASSWORD"]}}
      """
    And I approve the tools of "demo"
    And I start the worker with:
      """
      {"args": ["--url", "{engine_url}", "--config", "{config}"],
       "env": {"BDD_VISIBLE": "yes", "PGPASSWORD": "pw", "DATABASE_URL": "postgres://app:pw@db/app", "SSH_AUTH_SOCK": "/tmp/agent.1", "UPSTREAM": "https://u:pw@example.com/", "GH_TOKEN": "gh"}}
      """
    And the worker serves
    And the engine lists the function "demo::creds"
    When I call "demo::creds"
    Then the result at "output" is "[yes|pw||||]\n"

  Scenario: a value that would begin an argument with a dash is refused before anything runs
    Given I approve the tools of "demo"
    And the engine lists the function "demo::sort"
    When I call "demo::sort" with:
      """
      {"file": "--output=pwned.txt"}
      """
    Then the call fails with code "invalid_argument"
    And the error message starts with "parameter file: the value "--output=pwned.txt" begins with "-", so sort could take it for an option"
    When I call "demo::sort" with:
      """
      {"file": "--files0-from=/etc/hostname"}
      """
    Then the call fails with code "invalid_argument"
    When I call "demo::sort" with:
      """
      {"file": "./pwned.txt"}
      """
    Then the result at "success" is false
    And the result at "output" matches "pwned\.txt: No such file"

  Scenario: a process that left the command's session does not outlive the call
    Given I approve the tools of "demo"
    And the engine lists the function "demo::leave"
    When I call "demo::leave" with:
      """
      {"pidfile": "{dir}/left.pid"}
      """
    Then the result at "success" is true
    And the process whose pid is in the file "left.pid" has ended within 5000 ms

  Scenario: a failing command is a result with its exit code; JSON output is parsed
    Given I approve the tools of "demo"
    And the engine lists the function "demo::fail"
    When I call "demo::fail"
    Then the result at "success" is false
    And the result at "exit_code" is 3
    And the result at "output" is "oops\n"
    And the result at "error" is "Command failed with exit code 3"
    And the result has no "parsed"
    When I call "demo::json"
    Then the result at "parsed" is {"ok": true, "n": 5}

  Scenario: 100 KB of output come back as head and tail
    Given I approve the tools of "demo"
    And the engine lists the function "demo::big"
    When I call "demo::big"
    Then the result at "truncated" is true
    And the result at "output" matches "^(0123456789\n){186}01\n\.\.\. \[truncated 98304 bytes\] \.\.\.\n"
    And the result at "output" matches "\n0123456789\n0$"

  Scenario: a timeout stops the whole process group, a grandchild included
    Given I approve the tools of "demo"
    And the engine lists the function "demo::hang"
    When I call "demo::hang" with:
      """
      {"pidfile": "{dir}/grandchild.pid"}
      """
    Then the result at "success" is false
    And the result at "exit_code" is -1
    And the result at "error" is "timed out after 1s"
    And the process whose pid is in the file "grandchild.pid" has ended within 5000 ms

  Scenario: editing an approved SKILL.md unregisters its tools until it is approved again
    Given I approve the tools of "demo"
    And the engine lists the function "demo::show"
    When the file "fs-roots/demo/SKILL.md" contains:
      """
      ---
      name: demo
      version: 1.0.1
      description: Changed after the approval.
      ---
      ### show

      Now runs something else.

      #### Command

      ```
      printf changed
      ```
      """
    Then the engine no longer lists the function "demo::show"
    And the worker output contains "tool skill changed since it was approved"
    When I approve the tools of "demo"
    Then the engine lists the function "demo::show"
    When I call "demo::show"
    Then the result at "output" is "changed"

  Scenario: a tool skill registered over the protocol, or not approved, never runs
    Given the file "fs-roots/later/SKILL.md" contains:
      """
      ---
      name: later
      version: 1.0.0
      description: Approved last.
      ---
      ### ping

      Say pong.

      #### Command

      ```
      echo pong
      ```
      """
    And the skill "proto" is registered with body:
      """
      ---
      name: proto
      version: 1.0.0
      description: Sent over the protocol.
      ---
      ### run

      Would run a command.

      #### Command

      ```
      touch /tmp/should-never-exist
      ```
      """
    When I approve the tools of "later"
    Then the engine lists the function "later::ping"
    And the engine no longer lists the function "proto::run"
    And the engine no longer lists the function "demo::show"
