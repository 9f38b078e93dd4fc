package diagnostics

// LiveConfig is the worker's entry in the engine's configuration worker
// (docs/data-path.md#live-configuration): present in skills::diagnostics
// only when the engine has one and the worker follows its entry.
type LiveConfig struct {
	// Entry is the configuration id the worker owns ($III_CONFIG_NAME,
	// else its name).
	Entry string `json:"entry"`
	// Applied are the keys whose value in force came from the entry
	// rather than the file, applied without a restart.
	Applied []string `json:"applied,omitempty"`
	// RestartNeeded are the keys whose value in the entry differs from
	// the one in force: they apply when the worker restarts.
	RestartNeeded []string `json:"restart_needed,omitempty"`
	// Refused says why the entry's last value was refused (the running
	// config stayed as it was), with the key, the value and what is
	// allowed; absent once a value is accepted.
	Refused string `json:"refused,omitempty"`
}
