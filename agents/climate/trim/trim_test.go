package trim_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentreplay/testbed/agents/climate/trim"
)

var _ = Describe("the trimmers", func() {
	DescribeTable("match their golden files",
		func(file, want string, fn trimmer) {
			golden(file, want, pretty(fn(input(file))))
		},
		Entry("Listing", "listing.txtar", "Listing.json", trimmer(trim.Listing)),
		Entry("Inventory", "inventory.txtar", "Inventory.json", trimmer(trim.Inventory)),
		Entry("Datasources, real shape", "datasources-real.txtar", "Datasources.json", trimmer(trim.Datasources)),
		Entry("Datasources, seed shape", "datasources-seed.txtar", "Datasources.json", trimmer(trim.Datasources)),
		Entry("SeedDatasources, real shape", "datasources-real.txtar", "SeedDatasources.json", trimmer(trim.SeedDatasources)),
		Entry("SeedDatasources, seed shape", "datasources-seed.txtar", "SeedDatasources.json", trimmer(trim.SeedDatasources)),
	)

	DescribeTable("leave their input as it was and share no memory with it",
		func(file string, fn trimmer) {
			in := input(file)
			before := deepCopy(in)
			out := fn(in)
			Expect(in).To(Equal(before), "the call changed its input")
			scribble(out)
			Expect(in).To(Equal(before), "writing to the output changed the input")
		},
		Entry("Listing", "listing.txtar", trimmer(trim.Listing)),
		Entry("Inventory", "inventory.txtar", trimmer(trim.Inventory)),
		Entry("Datasources, real shape", "datasources-real.txtar", trimmer(trim.Datasources)),
		Entry("Datasources, seed shape", "datasources-seed.txtar", trimmer(trim.Datasources)),
		Entry("SeedDatasources, seed shape", "datasources-seed.txtar", trimmer(trim.SeedDatasources)),
	)

	DescribeTable("drop what the model does not need, at any depth, and every null or empty field",
		func(file string, fn trimmer, dropped []string) {
			out := fn(input(file))
			ks := keys(out)
			for _, k := range dropped {
				Expect(ks).NotTo(HaveKey(k))
			}
			Expect(blanks(out)).To(BeEmpty())
		},
		Entry("Listing", "listing.txtar", trimmer(trim.Listing), []string{
			"cityId", "totalCountryEmissions", "isPublic", "publishedAt", "created", "lastUpdated",
		}),
		Entry("Inventory", "inventory.txtar", trimmer(trim.Inventory), []string{
			"shape", "coordinates", "type", "project", "projectId", "organization", "organizationId", "contactEmail",
			"logoUrl", "themeId", "cityCountLimit", "description", "cityId", "totalCountryEmissions", "isPublic",
			"publishedAt", "created", "lastUpdated",
		}),
		Entry("Datasources, real shape", "datasources-real.txtar", trimmer(trim.Datasources), datasourceWaste),
		Entry("Datasources, seed shape", "datasources-seed.txtar", trimmer(trim.Datasources), datasourceWaste),
	)

	DescribeTable("shrink the marshalled body",
		func(file string, fn trimmer, atLeast float64) {
			in := input(file)
			before, after := size(in), size(fn(in))
			cut := 100 * float64(before-after) / float64(before)
			AddReportEntry(file, fmt.Sprintf("%d -> %d bytes, -%.1f%%", before, after, cut))
			fmt.Fprintf(GinkgoWriter, "%s: %d -> %d bytes, -%.1f%%\n", file, before, after, cut)
			Expect(cut).To(BeNumerically(">=", atLeast))
		},
		Entry("Listing", "listing.txtar", trimmer(trim.Listing), 45.0),
		Entry("Inventory", "inventory.txtar", trimmer(trim.Inventory), 90.0),
		Entry("Datasources, real shape", "datasources-real.txtar", trimmer(trim.Datasources), 85.0),
	)
})

// datasourceWaste is what the datasource trimmer must not pass on.
var datasourceWaste = []string{
	"datasourceId", "records", "inventoryValues", "publisher", "publisherId", "datasetName", "datasetDescription",
	"methodologyDescription", "transformationDescription", "methodologyUrl", "url", "apiEndpoint", "notes",
	"priority", "language", "accessibility", "accessType", "created", "lastUpdated", "scopes", "totals",
	"emissions", "removedSources", "failedSources", "successfulSources", "subsectorId", "subcategoryId", "sectorId",
}
