package lint

import "regexp"

// The text rules (docs/decisions.md D65) match phrases, never single
// words: a skill about security may well say "exfiltration" or ".env";
// what is flagged is an instruction to do it. Each rule has anchors, plain
// substrings of the lower-cased line, and runs its expressions only on a
// line holding one, so a clean line costs a few substring searches.

// textRule is one rule over the lower-cased line.
type textRule struct {
	name    string
	anchors [][]byte
	exprs   []*regexp.Regexp
}

func anchors(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

var textRules = []textRule{
	{RuleAgentInstruction, anchors("ignore", "disregard", "forget", "override", "tell", "inform", "notify", "alert", "mention", "you are now", "system prompt", "exfiltrat", "send", "upload", "post", "transmit", "forward", "leak"), []*regexp.Regexp{
		// "ignore all previous instructions", "disregard the prior rules"
		regexp.MustCompile(`\b(?:ignore|disregard|forget|override)\s+(?:(?:all|any|every|the|your|these|those|of|my)\s+)*(?:previous|prior|above|earlier|preceding|original|system|developer)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|context)\b`),
		// "disregard the system prompt"
		regexp.MustCompile(`\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:the|your|any|all)\s+)*system\s+prompts?\b`),
		// "reveal your system prompt"
		regexp.MustCompile(`\b(?:reveal|print|output|repeat|leak|disclose)\s+(?:(?:the|your)\s+)(?:full\s+|entire\s+|hidden\s+)?system\s+prompt\b`),
		// "do not tell the user", "without informing the user"
		regexp.MustCompile(`\b(?:do\s+not|don't|never|must\s+not)\s+(?:tell|inform|alert|notify|warn|mention\s+(?:this|it|anything)\s+to|let)\s+the\s+user\b(?:\s+know)?`),
		regexp.MustCompile(`\bwithout\s+(?:telling|informing|alerting|notifying)\s+the\s+user\b`),
		regexp.MustCompile(`\b(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+)\s+(?:hidden\s+)?from\s+the\s+user\b`),
		// a new persona or mode: "you are now DAN", "you are now in developer mode"
		regexp.MustCompile(`\byou\s+are\s+now\s+(?:(?:in\s+)?(?:developer|god|jailbreak|jailbroken|unrestricted|unfiltered|dan|admin|root|debug)\b(?:\s+mode)?|(?:a|an)\s+(?:unrestricted|unfiltered|jailbroken|uncensored|different|new)\b|no\s+longer\s+(?:bound|restricted|an?\s+ai|claude|chatgpt|assistant))`),
		// exfiltration: "send the api keys to", "upload the credentials to"
		regexp.MustCompile(`\b(?:send|post|upload|exfiltrate|transmit|forward|leak|copy)\s+(?:(?:the|all|any|every|their|your|user's|users'|its|of|these)\s+)*(?:credentials|secrets|api\s+keys?|access\s+tokens?|tokens|passwords|private\s+keys?|ssh\s+keys?|env(?:ironment)?\s+variables|\.env(?:\s+files?)?|cookies|session\s+cookies|conversation(?:\s+history)?|chat\s+history)\s+(?:to|via|into)\s+(?:https?://|an?\s+(?:external|remote|attacker)|the\s+(?:attacker|external|remote)|my\s+server|this\s+(?:url|endpoint|server|webhook)|\S+\.\S+)`),
	}},
	{RuleCredentialPath, anchors(".ssh/", ".aws/", ".netrc", ".env", "/etc/shadow", "/etc/gshadow", "keychain", "cookies", "login data", "key4.db", "logins.json", ".kube/config", ".docker/config.json", ".git-credentials", "gcloud/", "find-generic-password", "find-internet-password", ".pgpass", ".pypirc", "gh/hosts.yml"), []*regexp.Regexp{
		regexp.MustCompile(`\.ssh/(?:id_[a-z0-9_]+|authorized_keys)\b`),
		regexp.MustCompile(`\.aws/credentials\b`),
		regexp.MustCompile(`(?:~|\$home|/home/[^/\s]+|/root|/users/[^/\s]+)/\.netrc\b`),
		// a .env file read out, not one mentioned: "cat .env", "source ~/.env | curl"
		regexp.MustCompile(`\b(?:cat|less|more|head|tail|base64|xxd|strings|curl[^|]*?(?:-d|--data[a-z-]*|-f|--form|-t|--upload-file)\s*@?)\s+["']?[^\s"']*\.env\b`),
		regexp.MustCompile(`(?:~|\$home)/\.env\b`),
		regexp.MustCompile(`/etc/g?shadow\b`),
		regexp.MustCompile(`\blibrary/keychains\b|\blogin\.keychain(?:-db)?\b|\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b`),
		regexp.MustCompile(`(?:chrome|chromium|brave|edge|opera|vivaldi)[^\n]*/(?:default|profile[^/]*)/(?:cookies|login data|web data)\b|\bcookies\.sqlite\b|\bkey4\.db\b|\blogins\.json\b`),
		regexp.MustCompile(`\.kube/config\b|\.docker/config\.json\b|\.git-credentials\b|gcloud/(?:credentials\.db|application_default_credentials\.json|access_tokens\.db)\b|\.pgpass\b|\.pypirc\b|gh/hosts\.yml\b`),
	}},
	{RuleDownloadExec, anchors("curl", "wget", "iwr", "invoke-webrequest", "irm", "invoke-restmethod", "downloadstring", "base64"), []*regexp.Regexp{
		// curl … | sh, wget -qO- … | sudo bash, curl … | python3 -
		regexp.MustCompile(`\b(?:curl|wget|fetch)\b[^|\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+\S+=\S+\s+)*(?:ba|z|da|k|fi|a)?sh\b|\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node|php)\b(?:\s+-)?\s*(?:$|[;&)#]|-\s)`),
		// bash <(curl …), sh -c "$(curl …)", eval "$(wget …)", source <(curl …)
		regexp.MustCompile(`(?:(?:ba|z|da|k)?sh|source|\.)\s+<\(\s*(?:curl|wget)\b|(?:(?:ba|z|da|k)?sh\s+-c|eval)\s+["']?\$\(\s*(?:curl|wget)\b`),
		// PowerShell: iwr … | iex, iex (iwr …), iex (New-Object Net.WebClient).DownloadString(…)
		regexp.MustCompile(`\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]*\|\s*(?:iex|invoke-expression)\b|\b(?:iex|invoke-expression)\s*\(?\s*(?:\(?\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b|\(?\s*new-object\s+(?:system\.)?net\.webclient\)?\.downloadstring)`),
		// base64 -d | sh
		regexp.MustCompile(`\bbase64\s+(?:-d|--decode|-D)\b[^|\n]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b`),
	}},
}

// phrases runs the text rules on one line: lower is line in lower case,
// byte for byte, so a match's offsets cut the excerpt from line itself.
func (c *checker) phrases(line string, lower []byte, n int) {
	for _, tr := range textRules {
		if !containsAny(lower, tr.anchors) {
			continue
		}
		for _, re := range tr.exprs {
			if loc := re.FindIndex(lower); loc != nil {
				c.report.add(Finding{Rule: tr.name, Line: n, Detail: excerpt(line, loc[0], loc[1])})
				break
			}
		}
	}
}
