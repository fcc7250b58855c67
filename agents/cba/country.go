package cba

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// countryCodes maps the country names the tools accept to ISO 3166-1
// alpha-2 codes; a two-letter argument is taken as a code.
var countryCodes = map[string]string{
	"burkina faso": "BF", "chad": "TD", "kenya": "KE", "peru": "PE", "united states": "US",
}

func countryCode(country string) string {
	if c, ok := countryCodes[strings.ToLower(strings.TrimSpace(country))]; ok {
		return c
	}
	if len(country) == 2 {
		return strings.ToUpper(country)
	}
	return country
}

// The World Bank series get_world_bank_data offers, by the name the model
// passes.
var wbSeries = []struct{ name, code, title string }{
	{"gdp", "NY.GDP.MKTP.CD", "GDP (current US$)"},
	{"gdp_per_capita", "NY.GDP.PCAP.CD", "GDP per capita (current US$)"},
	{"population", "SP.POP.TOTL", "Total population"},
	{"poverty", "SI.POV.NAHC", "Poverty headcount ratio (%)"},
	{"gini", "SI.POV.GINI", "Gini index"},
	{"agricultural_land", "AG.LND.AGRI.ZS", "Agricultural land (% of land area)"},
	{"rural_population", "SP.RUR.TOTL.ZS", "Rural population (% of total)"},
}

func wbNames() []string {
	var out []string
	for _, s := range wbSeries {
		out = append(out, s.name)
	}
	return out
}

// restCountry is the part of a REST Countries v3.1 record the profile uses.
type restCountry struct {
	Name struct {
		Common   string `json:"common"`
		Official string `json:"official"`
	} `json:"name"`
	Capital    []string          `json:"capital"`
	Region     string            `json:"region"`
	Subregion  string            `json:"subregion"`
	Area       float64           `json:"area"`
	Population float64           `json:"population"`
	Languages  map[string]string `json:"languages"`
	Currencies map[string]struct {
		Name   string `json:"name"`
		Symbol string `json:"symbol"`
	} `json:"currencies"`
}

func (a *Agent) countryIndicators(ctx context.Context, args map[string]any) (string, []byte, error) {
	country := str(args, "country")
	body, err := a.geo.get(ctx, "restcountries", "/v3.1/alpha/"+url.PathEscape(countryCode(country)), url.Values{})
	if err != nil {
		if strings.Contains(err.Error(), "HTTP 404") {
			return "", body, fmt.Errorf("could not find country: %s", country)
		}
		return "", body, err
	}
	var rs []restCountry
	if err := json.Unmarshal(body, &rs); err != nil || len(rs) == 0 {
		return "", body, fmt.Errorf("could not find country: %s", country)
	}
	c := rs[0]
	var langs, currs []string
	for _, l := range c.Languages {
		langs = append(langs, l)
	}
	for code, cur := range c.Currencies {
		currs = append(currs, fmt.Sprintf("%s (%s)", cur.Name, code))
	}
	slices.Sort(langs)
	slices.Sort(currs)
	capital := "unknown"
	if len(c.Capital) > 0 {
		capital = c.Capital[0]
	}
	density := "unknown"
	if c.Area > 0 {
		density = fmt.Sprintf("%.1f per km²", c.Population/c.Area)
	}
	return fmt.Sprintf("Country profile: %s (%s)\n- Capital: %s\n- Region: %s, %s\n- Area: %s km²\n- Population: %.2f million (%s)\n- Languages: %s\n- Currencies: %s",
		c.Name.Common, c.Name.Official, capital, c.Region, c.Subregion, thousands(c.Area), c.Population/1e6, density,
		strings.Join(langs, ", "), strings.Join(currs, ", ")), body, nil
}

// thousands writes a whole number with comma separators.
func thousands(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (a *Agent) worldBankData(ctx context.Context, args map[string]any) (string, []byte, error) {
	country, name := str(args, "country"), strings.ReplaceAll(strings.ToLower(or(str(args, "indicator"), "gdp")), " ", "_")
	i := slices.IndexFunc(wbSeries, func(s struct{ name, code, title string }) bool { return s.name == name })
	if i < 0 {
		return "", nil, fmt.Errorf("unknown indicator %q; choose one of %s", name, strings.Join(wbNames(), ", "))
	}
	series := wbSeries[i]
	q := url.Values{"format": {"json"}, "per_page": {"20"}, "date": {"2010:2024"}}
	body, err := a.geo.get(ctx, "worldbank", "/v2/country/"+url.PathEscape(countryCode(country))+"/indicator/"+series.code, q)
	if err != nil {
		return "", body, err
	}
	var page []json.RawMessage
	var rows []struct {
		Country struct {
			Value string `json:"value"`
		} `json:"country"`
		Date  string   `json:"date"`
		Value *float64 `json:"value"`
	}
	if json.Unmarshal(body, &page) != nil || len(page) < 2 || json.Unmarshal(page[1], &rows) != nil || len(rows) == 0 {
		return fmt.Sprintf("No data available for %s: %s.", country, series.title), body, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s (World Bank %s)\nYear | Value", series.title, rows[0].Country.Value, series.code)
	n := 0
	for _, r := range rows {
		if r.Value != nil {
			fmt.Fprintf(&b, "\n%s | %s", r.Date, wbValue(name, *r.Value))
			n++
		}
	}
	if n == 0 {
		return fmt.Sprintf("No recent data available for %s: %s.", country, series.title), body, nil
	}
	return b.String(), body, nil
}

// wbValue formats a series value: money and population in their
// magnitudes, shares and indices with two decimals.
func wbValue(name string, v float64) string {
	switch name {
	case "gdp":
		return fmt.Sprintf("$%.2fB", v/1e9)
	case "gdp_per_capita":
		return fmt.Sprintf("$%.0f", v)
	case "population":
		return fmt.Sprintf("%.2fM", v/1e6)
	}
	return fmt.Sprintf("%.2f", v)
}
