package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The passed names and the allowed ones reach a command; credentials do
// not, whether their name or their value gives them away, unless an
// entry of env_allow names the variable exactly.
func TestFilterEnv(t *testing.T) {
	environ := []string{
		"PATH=/bin", "LC_TIME=x", "TZ=UTC", "EDITOR=vi", "MINE=7", "=bad", "novalue",
		"SECRET_TOKEN=1", "GH_KEY=2", "X_SECRET=3", "AWS_PROFILE=4", "OPENAI_ORG=5", "ANTHROPIC_BASE_URL=6", "MINE_TOKEN=8",
		"PGPASSWORD=pw", "DATABASE_URL=postgres://app@db/app", "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1",
		"GOOGLE_APPLICATION_CREDENTIALS=/k.json", "MINE_URL=https://u:p4ss@example.com/x", "MINE_OK_URL=https://example.com:8443/a@b",
	}
	for _, c := range []struct {
		name  string
		allow []string
		want  []string
	}{
		{"defaults only", nil, []string{"PATH=/bin", "LC_TIME=x", "TZ=UTC"}},
		{"globs pass no credential", []string{"MINE*", "AWS_*", "*"},
			[]string{"PATH=/bin", "LC_TIME=x", "TZ=UTC", "EDITOR=vi", "MINE=7", "MINE_OK_URL=https://example.com:8443/a@b"}},
		{"exact names pass credentials, one by one", []string{"AWS_PROFILE", "PGPASSWORD", "MINE_URL", "SSH_AUTH_SOCK"},
			[]string{"PATH=/bin", "LC_TIME=x", "TZ=UTC", "AWS_PROFILE=4", "PGPASSWORD=pw", "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", "MINE_URL=https://u:p4ss@example.com/x"}},
		{"an exact name is case-sensitive", []string{"pgpassword"}, []string{"PATH=/bin", "LC_TIME=x", "TZ=UTC"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, FilterEnv(environ, c.allow)); diff != "" {
				t.Errorf("FilterEnv (-want +got):\n%s", diff)
			}
		})
	}
}

// Credential, name by name and value by value: each entry of the lists
// in env.go is caught, and look-alikes that are not credentials pass.
func TestCredential(t *testing.T) {
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		// by name
		{"GITHUB_TOKEN", "x", true}, {"github_token", "x", true}, {"NPM_TOKEN", "x", true},
		{"CLIENT_SECRET", "x", true}, {"PGPASSWORD", "x", true}, {"DB_PASSWORD", "x", true},
		{"MYSQL_PWD", "x", true}, {"FTP_PASSWD", "x", true}, {"GPG_PASSPHRASE", "x", true},
		{"STRIPE_KEY", "x", true}, {"MAPS_APIKEY", "x", true}, {"GOOGLE_APPLICATION_CREDENTIALS", "/k.json", true},
		{"SESSION_COOKIE", "x", true}, {"NPM_CONFIG__AUTH", "x", true}, {"SENTRY_DSN", "x", true},
		{"DATABASE_URL", "postgres:///app", true}, {"READ_DATABASE_URL", "x", true},
		{"AZURE_STORAGE_CONNECTION_STRING", "x", true}, {"AWS_REGION", "eu-west-1", true},
		{"OPENAI_BASE_URL", "x", true}, {"ANTHROPIC_MODEL", "x", true},
		{"SSH_AUTH_SOCK", "/tmp/a", true}, {"GPG_AGENT_INFO", "x", true}, {"KRB5CCNAME", "FILE:/tmp/k", true},
		// by value
		{"MY_URL", "https://user:hunter2@example.com/", true},
		{"REDIS", "redis://:hunter2@cache:6379/0", true},
		{"PIP_INDEX", "--index-url https://u:p@pypi.example/simple", true},
		{"CERT", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn…", true},
		{"CERT", "-----BEGIN RSA PRIVATE KEY-----", true},
		{"AUTHZ", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig", true},
		{"X", "ghp_" + strings.Repeat("a", 36), true}, {"X", "github_pat_" + strings.Repeat("A", 40), true},
		{"X", "glpat-" + strings.Repeat("x", 20), true}, {"X", "xoxb-1234567890-abc", true},
		{"X", "sk-proj-" + strings.Repeat("a", 40), true}, {"X", "sk-ant-api03-" + strings.Repeat("a", 40), true},
		{"X", "sk_live_" + strings.Repeat("a", 24), true}, {"X", "AKIAIOSFODNN7EXAMPLE", true},
		{"X", "AIza" + strings.Repeat("b", 35), true}, {"X", "npm_" + strings.Repeat("c", 36), true},
		{"X", "hf_" + strings.Repeat("d", 34), true}, {"X", "pypi-" + strings.Repeat("e", 60), true},
		{"GIT_REMOTE", "https://x-access-token:ghp_" + strings.Repeat("a", 36) + "@github.com/o/r", true},
		// not credentials
		{"PATH", "/usr/local/bin:/opt/task-runner-with-a-long-name-here/bin:/usr/bin", false},
		{"HOME", "/home/me", false}, {"LANG", "C.UTF-8", false}, {"EDITOR", "vi", false},
		{"PWD", "/srv", false}, {"OLDPWD", "/srv", false}, {"KEYBOARD", "us", false},
		{"PASSWORD_STORE_DIR", "/p", false}, {"TOKEN_FILE_DIR", "/t", false},
		{"SITE", "https://example.com:8443/a@b", false}, {"GIT_URL", "ssh://git@github.com/o/r", false},
		{"MAIL", "me@example.com", false}, {"X", "disk-" + strings.Repeat("a", 30), false},
		{"SHA", strings.Repeat("0123456789abcdef", 4), false},
	} {
		if got := Credential(c.name, c.value); got != c.want {
			t.Errorf("Credential(%s, %.40q) = %v, want %v", c.name, c.value, got, c.want)
		}
	}
}
