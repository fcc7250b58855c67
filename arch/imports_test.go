package arch_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const module = "github.com/agentreplay/testbed/"

// pkg is one package of the module as go list shows it, without its tests.
type pkg struct {
	path    string   // below the module, such as harness/runner
	imports []string // its direct imports, below the module
	deps    []string // everything it builds on, below the module
}

// modulePackages lists every package of the module (examples/ are modules of
// their own and not listed).
func modulePackages() []pkg {
	GinkgoHelper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, "./...")
	cmd.Dir = ".."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred(), stderr.String())
	own := func(list string) []string {
		var in []string
		for _, p := range strings.Fields(list) {
			if rest, ok := strings.CutPrefix(p, module); ok {
				in = append(in, rest)
			}
		}
		return in
	}
	var pkgs []pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "|", 3)
		Expect(f).To(HaveLen(3), sc.Text())
		path, ok := strings.CutPrefix(f[0], module)
		if !ok {
			continue
		}
		pkgs = append(pkgs, pkg{path: path, imports: own(f[1]), deps: own(f[2])})
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	Expect(len(pkgs)).To(BeNumerically(">", 30), "go list found too few packages to judge")
	return pkgs
}

// under reports whether path is dir or a package below it.
func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}

var _ = Describe("the module's imports", Ordered, ContinueOnFailure, func() {
	var pkgs []pkg
	BeforeAll(func() { pkgs = modulePackages() })

	It("point one way: no agents/… package builds on harness/…", func() {
		var broken []string
		for _, p := range pkgs {
			if !under(p.path, "agents") {
				continue
			}
			for _, d := range p.deps {
				if under(d, "harness") {
					broken = append(broken, p.path+" → "+d)
				}
			}
		}
		Expect(broken).To(BeEmpty())
	})

	It("keep the stand-in and its parts to itself, the runner and the CLI", func() {
		allowed := func(path string) bool {
			return under(path, "harness/standin") || path == "harness/runner" || path == "cmd/testbed"
		}
		var broken []string
		for _, p := range pkgs {
			for _, imp := range p.imports {
				if !allowed(p.path) && under(imp, "harness/standin") {
					broken = append(broken, p.path+" → "+imp)
				}
			}
		}
		Expect(broken).To(BeEmpty())
	})

	// standinParts are the stand-in's packages below harness/standin,
	// without the server's own test double (standintest), which starts it.
	standinParts := func() []pkg {
		var parts []pkg
		for _, p := range pkgs {
			if under(p.path, "harness/standin") && p.path != "harness/standin" && p.path != "harness/standin/standintest" {
				parts = append(parts, p)
			}
		}
		Expect(len(parts)).To(BeNumerically(">=", 9), "too few stand-in parts to judge")
		return parts
	}

	// reaches lists the dependencies of the packages whose path holds
	// that fall under one of dirs (other than the package itself).
	reaches := func(holds func(string) bool, dirs ...string) []string {
		var broken []string
		for _, p := range standinParts() {
			if !holds(p.path) {
				continue
			}
			for _, d := range p.deps {
				for _, dir := range dirs {
					if d != p.path && (d == dir || strings.HasPrefix(d, dir+"/")) {
						broken = append(broken, p.path+" → "+d)
					}
				}
			}
		}
		return broken
	}

	It("keep the stand-in's parts off the server: no part builds on harness/standin itself", func() {
		var broken []string
		for _, p := range standinParts() {
			if slices.Contains(p.deps, "harness/standin") {
				broken = append(broken, p.path)
			}
		}
		Expect(broken).To(BeEmpty())
	})

	It("keep each seed agent's policy to itself: it builds on no other seed's policy and not on the generic one", func() {
		seed := func(path string) bool { return strings.HasPrefix(path, "harness/standin/seeds/") }
		Expect(reaches(seed, "harness/standin/seeds", "harness/standin/generic", "harness/standin/grader")).To(BeEmpty())
	})

	It("keep the generic policy and the judge off the seeds' policies and off each other", func() {
		Expect(reaches(func(p string) bool { return p == "harness/standin/generic" }, "harness/standin/seeds", "harness/standin/grader")).To(BeEmpty())
		Expect(reaches(func(p string) bool { return p == "harness/standin/grader" }, "harness/standin/seeds", "harness/standin/generic")).To(BeEmpty())
	})

	It("keep the policy toolkit and the lexicon free of every policy", func() {
		toolkit := func(p string) bool {
			return p == "harness/standin/policy" || p == "harness/standin/lexicon" || p == "harness/standin/instruct"
		}
		Expect(reaches(toolkit, "harness/standin/seeds", "harness/standin/generic", "harness/standin/grader")).To(BeEmpty())
		Expect(reaches(func(p string) bool { return p == "harness/standin/lexicon" }, "harness/standin/policy")).To(BeEmpty())
	})

	It("give the suite loader no provider adapter: of agents/llm it builds on the neutral package only", func() {
		var loader *pkg
		for i := range pkgs {
			if pkgs[i].path == "harness/scenario" {
				loader = &pkgs[i]
			}
		}
		Expect(loader).NotTo(BeNil())
		var adapters []string
		for _, d := range loader.deps {
			if under(d, "agents/llm") && d != "agents/llm" {
				adapters = append(adapters, d)
			}
		}
		Expect(adapters).To(BeEmpty())
	})

	It("keep the wire codecs free of the stand-in and its policies", func() {
		var wire *pkg
		for i := range pkgs {
			if pkgs[i].path == "harness/wire" {
				wire = &pkgs[i]
			}
		}
		Expect(wire).NotTo(BeNil(), "no harness/wire package")
		Expect(wire.deps).NotTo(ContainElement(HavePrefix("harness/standin")))
		Expect(wire.deps).NotTo(ContainElement(HavePrefix("harness/proxy")))
	})
})
