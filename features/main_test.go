// Package features is the worker's behaviour suite: the *.feature files in
// this directory, run by godog as subtests of TestFeatures. See README.md
// for tags, flags and running against a real engine.
package features

import (
	"flag"
	"os"
	"testing"

	"github.com/cucumber/godog"
)

// opts are the godog options; the -godog.* flags (godog.BindFlags) may
// override format and tags. Strictness, order and concurrency are fixed.
var opts = godog.Options{
	Format: "progress",
	Paths:  []string{"."},
	Strict: true,
}

func TestMain(m *testing.M) {
	godog.BindFlags("godog.", flag.CommandLine, &opts)
	flag.Parse()
	os.Exit(m.Run())
}

func TestFeatures(t *testing.T) {
	run := newRun(t)
	o := opts
	o.TestingT = t
	o.Strict = true
	o.Randomize = 0
	// One scenario at a time: each one owns the worker process attached to
	// the engine, and the next starts only after it exited.
	o.Concurrency = 1
	if len(o.Paths) == 0 {
		o.Paths = []string{"."}
	}
	suite := godog.TestSuite{
		Name:                "skills",
		ScenarioInitializer: run.initScenario,
		Options:             &o,
	}
	code := suite.Run()
	if o.ShowStepDefinitions {
		return // -godog.definitions lists the steps and runs nothing
	}
	if code != 0 {
		t.Fatalf("godog suite failed (exit status %d)", code)
	}
}
