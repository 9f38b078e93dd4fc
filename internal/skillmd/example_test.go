package skillmd_test

import (
	"fmt"

	"github.com/iii-hq/skills-go/internal/skillmd"
)

func ExampleSplitFrontmatter() {
	file := []byte("---\nname: open-pr\ndescription: Open a pull request.\n---\nCreate the PR.\n")
	front, body, ok := skillmd.SplitFrontmatter(file)
	fmt.Printf("%v\n%s\n%q\n", ok, front, body)

	_, body, ok = skillmd.SplitFrontmatter([]byte("---\nnever closed\n"))
	fmt.Printf("%v %q\n", ok, body)
	// Output:
	// true
	// name: open-pr
	// description: Open a pull request.
	// "Create the PR.\n"
	// false "---\nnever closed\n"
}
