package cba

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// soilDepths are the SoilGrids depths that make up 0-30 cm.
func soilDepths() []string { return []string{"0-5cm", "5-15cm", "15-30cm"} }

// soilProps are the properties the agent asks for, with their display
// units after dividing by the layer's d_factor.
func soilProps() []string { return []string{"soc", "clay", "sand", "phh2o", "bdod", "nitrogen"} }

func soilUnit(prop string) string {
	return map[string]string{"soc": "g/kg", "clay": "%", "sand": "%", "phh2o": "pH", "bdod": "kg/dm³", "nitrogen": "g/kg"}[prop]
}

// soil fetches every property at the three depths and converts values.
func (a *Agent) soil(ctx context.Context, location string) (place, map[string]map[string]float64, []byte, error) {
	p, err := a.geo.locate(ctx, location)
	if err != nil {
		return p, nil, nil, err
	}
	q := url.Values{"lon": {ff(p.Lon)}, "lat": {ff(p.Lat)}, "property": soilProps(), "depth": soilDepths(), "value": {"mean"}}
	body, err := a.geo.get(ctx, "soilgrids", "/soilgrids/v2.0/properties/query", q)
	if err != nil {
		return p, nil, body, err
	}
	var sg struct {
		Properties struct {
			Layers []struct {
				Name string `json:"name"`
				Unit struct {
					DFactor float64 `json:"d_factor"`
				} `json:"unit_measure"`
				Depths []struct {
					Label  string `json:"label"`
					Values struct {
						Mean *float64 `json:"mean"`
					} `json:"values"`
				} `json:"depths"`
			} `json:"layers"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(body, &sg); err != nil || len(sg.Properties.Layers) == 0 {
		return p, nil, body, fmt.Errorf("SoilGrids answered without soil layers")
	}
	out := map[string]map[string]float64{}
	for _, l := range sg.Properties.Layers {
		f := l.Unit.DFactor
		if f == 0 {
			f = 1
		}
		out[l.Name] = map[string]float64{}
		var sum float64
		n := 0
		for _, d := range l.Depths {
			if d.Values.Mean == nil {
				continue
			}
			v := *d.Values.Mean / f
			out[l.Name][d.Label] = v
			sum += v
			n++
		}
		if n == len(soilDepths()) {
			out[l.Name]["0-30cm"] = sum / float64(n)
		}
	}
	return p, out, body, nil
}

func (a *Agent) soilProperties(ctx context.Context, args map[string]any) (string, []byte, error) {
	want := strings.Split(str(args, "properties"), ",")
	if str(args, "properties") == "" {
		want = []string{"soc", "clay", "sand", "phh2o"}
	}
	depth := str(args, "depth")
	if depth == "" {
		depth = "0-30cm"
	}
	p, vals, raw, err := a.soil(ctx, str(args, "location"))
	if err != nil {
		return "", raw, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Soil properties for %s, %s (%s, SoilGrids mean):\n", p.Name, p.Country, depth)
	for _, prop := range want {
		prop = strings.TrimSpace(prop)
		v, ok := vals[prop][depth]
		if !ok {
			fmt.Fprintf(&b, "- %s: no data\n", prop)
			continue
		}
		fmt.Fprintf(&b, "- %s: %.2f %s\n", prop, v, soilUnit(prop))
	}
	return strings.TrimRight(b.String(), "\n"), raw, nil
}

// soilCarbon reports SOC for 0-30 cm and the stock: SOC (g/kg) × bulk
// density (kg/dm³) × 30 cm × 0.1 gives t C/ha.
func (a *Agent) soilCarbon(ctx context.Context, args map[string]any) (string, []byte, error) {
	p, vals, raw, err := a.soil(ctx, str(args, "location"))
	if err != nil {
		return "", raw, err
	}
	soc, ok1 := vals["soc"]["0-30cm"]
	bd, ok2 := vals["bdod"]["0-30cm"]
	if !ok1 {
		return "", raw, fmt.Errorf("SoilGrids has no organic carbon data for %s", p.Name)
	}
	out := fmt.Sprintf("Soil organic carbon for %s, %s (0-30 cm): %.1f g/kg", p.Name, p.Country, soc)
	if ok2 {
		out += fmt.Sprintf("; carbon stock about %.0f t C/ha (bulk density %.2f kg/dm³)", soc*bd*30*0.1, bd)
	}
	return out + ".", raw, nil
}
