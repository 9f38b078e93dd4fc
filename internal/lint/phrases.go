package lint

import (
	"regexp"
	"strings"
)

// The text rules (docs/decisions.md D65) match phrases, never single
// words: a skill about security may well say "exfiltration" or ".env";
// what is flagged is an instruction to do it. Each expression has trigger
// words, one of which a line must hold for the expression to run on it:
// a line is split into words once, each looked up in one map, so a clean
// line costs a pass and a few lookups, not a dozen expressions.

// pattern is one expression of a rule, over the lower-cased line. It runs
// on a line holding one of its triggers and, when it has any, one of its
// also words.
type pattern struct {
	rule     string
	triggers string // words, space-separated
	also     string // words, space-separated; "" for none
	re       *regexp.Regexp
}

// patterns are every text rule's expressions, the rules in Rules' order.
var patterns = []pattern{
	// "ignore all previous instructions", "disregard the prior rules"
	{RuleAgentInstruction, "ignore disregard forget override", "", regexp.MustCompile(`\b(?:ignore|disregard|forget|override)\s+(?:(?:all|any|every|the|your|these|those|of|my)\s+)*(?:previous|prior|above|earlier|preceding|original|system|developer)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|context)\b`)},
	// "disregard the system prompt", "reveal your system prompt"
	{RuleAgentInstruction, "prompt prompts", "", regexp.MustCompile(`\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:the|your|any|all)\s+)*system\s+prompts?\b|\b(?:reveal|print|output|repeat|leak|disclose)\s+(?:the|your)\s+(?:full\s+|entire\s+|hidden\s+)?system\s+prompt\b`)},
	// "do not tell the user", "without informing the user", "keep this hidden from the user"
	{RuleAgentInstruction, "user", "tell inform alert notify warn mention let telling informing alerting notifying hide conceal keep", regexp.MustCompile(`\b(?:do\s+not|don't|never|must\s+not)\s+(?:tell|inform|alert|notify|warn|mention\s+(?:this|it|anything)\s+to|let)\s+the\s+user\b(?:\s+know)?|\bwithout\s+(?:telling|informing|alerting|notifying)\s+the\s+user\b|\b(?:hide|conceal|keep)\s+(?:this|it|these\s+\w+)\s+(?:hidden\s+)?from\s+the\s+user\b`)},
	// a new persona or mode: "you are now DAN", "you are now in developer mode"
	{RuleAgentInstruction, "now", "you", regexp.MustCompile(`\byou\s+are\s+now\s+(?:(?:in\s+)?(?:developer|god|jailbreak|jailbroken|unrestricted|unfiltered|dan|admin|root|debug)\b(?:\s+mode)?|(?:a|an)\s+(?:unrestricted|unfiltered|jailbroken|uncensored|different|new)\b|no\s+longer\s+(?:bound|restricted|an?\s+ai|claude|chatgpt|assistant))`)},
	// exfiltration: "send the api keys to https://…", "upload the credentials to a remote server"
	{RuleAgentInstruction, "send post upload exfiltrate transmit forward leak copy", "credentials secrets api access tokens passwords private ssh env environment cookies session conversation chat", regexp.MustCompile(`\b(?:send|post|upload|exfiltrate|transmit|forward|leak|copy)\s+(?:(?:the|all|any|every|their|your|user's|users'|its|of|these)\s+)*(?:credentials|secrets|api\s+keys?|access\s+tokens?|tokens|passwords|private\s+keys?|ssh\s+keys?|env(?:ironment)?\s+variables|\.env(?:\s+files?)?|cookies|session\s+cookies|conversation(?:\s+history)?|chat\s+history)\s+(?:to|via|into)\s+(?:https?://|an?\s+(?:external|remote|attacker)|the\s+(?:attacker|external|remote)|my\s+server|this\s+(?:url|endpoint|server|webhook)|\S+\.\S+)`)},

	{RuleCredentialPath, "ssh", "", regexp.MustCompile(`\.ssh/(?:id_[a-z0-9_]+|authorized_keys)\b`)},
	{RuleCredentialPath, "aws", "", regexp.MustCompile(`\.aws/credentials\b`)},
	{RuleCredentialPath, "netrc", "", regexp.MustCompile(`(?:~|\$home|/home/[^/\s]+|/root|/users/[^/\s]+)/\.netrc\b`)},
	// a .env file read out, not one mentioned: "cat .env", "curl -d @.env", "~/.env"
	{RuleCredentialPath, "env", "cat less more head tail base64 xxd strings curl", regexp.MustCompile(`\b(?:cat|less|more|head|tail|base64|xxd|strings|curl[^|]*?(?:-d|--data[a-z-]*|-f|--form|-t|--upload-file)\s*@?)\s+["']?[^\s"']*\.env\b`)},
	{RuleCredentialPath, "env", "", regexp.MustCompile(`(?:~|\$home)/\.env\b`)},
	{RuleCredentialPath, "shadow gshadow", "", regexp.MustCompile(`/etc/g?shadow\b`)},
	{RuleCredentialPath, "keychain keychains generic internet dump", "", regexp.MustCompile(`\blibrary/keychains\b|\blogin\.keychain(?:-db)?\b|\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b`)},
	{RuleCredentialPath, "chrome chromium brave edge opera vivaldi", "cookies data", regexp.MustCompile(`(?:chrome|chromium|brave|edge|opera|vivaldi)[^\n]*/(?:default|profile[^/]*)/(?:cookies|login data|web data)\b`)},
	{RuleCredentialPath, "cookies key4 logins kube docker credentials gcloud pgpass pypirc hosts", "", regexp.MustCompile(`\bcookies\.sqlite\b|\bkey4\.db\b|\blogins\.json\b|\.kube/config\b|\.docker/config\.json\b|\.git-credentials\b|gcloud/(?:credentials\.db|application_default_credentials\.json|access_tokens\.db)\b|\.pgpass\b|\.pypirc\b|gh/hosts\.yml\b`)},

	// curl … | sh, wget -qO- … | sudo bash, curl … | python3 -
	{RuleDownloadExec, "curl wget fetch", "sh bash zsh dash ksh fish ash python python2 python3 perl ruby node php", regexp.MustCompile(`\b(?:curl|wget|fetch)\b[^|\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+\S+=\S+\s+)*(?:ba|z|da|k|fi|a)?sh\b|\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node|php)\b(?:\s+-)?\s*(?:$|[;&)#]|-\s)`)},
	// bash <(curl …), sh -c "$(curl …)", eval "$(wget …)", source <(curl …)
	{RuleDownloadExec, "curl wget", "source eval sh bash zsh dash ksh", regexp.MustCompile(`(?:(?:ba|z|da|k)?sh|source|\.)\s+<\(\s*(?:curl|wget)\b|(?:(?:ba|z|da|k)?sh\s+-c|eval)\s+["']?\$\(\s*(?:curl|wget)\b`)},
	// PowerShell: iwr … | iex, iex (iwr …), iex (New-Object Net.WebClient).DownloadString(…)
	{RuleDownloadExec, "iwr irm invoke iex", "", regexp.MustCompile(`\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]*\|\s*(?:iex|invoke-expression)\b|\b(?:iex|invoke-expression)\s*\(?\s*(?:\(?\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b|\(?\s*new-object\s+(?:system\.)?net\.webclient\)?\.downloadstring)`)},
	// base64 -d | sh
	{RuleDownloadExec, "base64", "", regexp.MustCompile(`\bbase64\s+(?:-d|--decode|-D)\b[^|\n]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b`)},
}

// words maps each trigger and also word to the patterns it names, as
// bits; prefixes (the lengths of the words that start with each two
// bytes, as bits) and maxWord are a cheap test before the lookup, which
// most words of a line fail.
var (
	words     = map[string]wordBits{}
	prefixes  [1 << 16]uint32
	maxWord   int
	needsAlso uint64 // the patterns with also words
	_         = buildWords()
)

type wordBits struct{ trigger, also uint64 }

func buildWords() bool {
	if len(patterns) > 64 {
		panic("lint: more than 64 patterns")
	}
	add := func(list string, i int, also bool) {
		for _, w := range strings.Fields(list) {
			b := words[w]
			if also {
				b.also |= 1 << i
			} else {
				b.trigger |= 1 << i
			}
			words[w] = b
			if len(w) >= 32 {
				panic("lint: a trigger word of 32 bytes or more")
			}
			prefixes[uint16(w[0])<<8|uint16(w[1])] |= 1 << len(w)
			maxWord = max(maxWord, len(w))
		}
	}
	for i, p := range patterns {
		add(p.triggers, i, false)
		if p.also != "" {
			add(p.also, i, true)
			needsAlso |= 1 << i
		}
	}
	return true
}

// wordByte is each byte as a word holds it: letters lower-cased, digits
// as they are, 0 for the bytes between words.
var wordByte = func() (t [256]byte) {
	for b := 'a'; b <= 'z'; b++ {
		t[b], t[b-'a'+'A'] = byte(b), byte(b)
	}
	for b := '0'; b <= '9'; b++ {
		t[b] = byte(b)
	}
	return t
}()

// wanted are the patterns the words of line call for, its letters read
// in lower case.
func wanted(line string) uint64 {
	var trig, also uint64
	var buf [24]byte
	n := 0
	for i := 0; i <= len(line); i++ {
		if i < len(line) {
			if c := wordByte[line[i]]; c != 0 {
				if n < len(buf) {
					buf[n] = c
				}
				n++
				continue
			}
		}
		if n >= 2 && n <= maxWord && prefixes[uint16(buf[0])<<8|uint16(buf[1])]&(1<<n) != 0 {
			b := words[string(buf[:n])]
			trig, also = trig|b.trigger, also|b.also
		}
		n = 0
	}
	return trig &^ (needsAlso &^ also)
}

// phrases runs the text rules on one line. The expressions read it in
// lower case, byte for byte, so a match's offsets cut the excerpt from
// line itself. A rule reports its first match on a line.
func (c *checker) phrases(line string, n int) {
	bits := wanted(line)
	if bits == 0 {
		return
	}
	c.lower = appendLower(c.lower[:0], line)
	lower := c.lower
	var done string
	for i := 0; bits != 0; i++ {
		if bits&(1<<i) == 0 {
			continue
		}
		bits &^= 1 << i
		p := patterns[i]
		if p.rule == done {
			continue
		}
		if loc := p.re.FindIndex(lower); loc != nil {
			c.report.add(Finding{Rule: p.rule, Line: n, Detail: excerpt(line, loc[0], loc[1])})
			done = p.rule
		}
	}
}
