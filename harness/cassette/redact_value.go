package cassette

import "reflect"

// Strings redacts, in place, every string reachable from v (a pointer):
// in struct fields (exported ones), slices, arrays, maps (values and the
// strings inside them) and interfaces, and every byte slice as text (raw
// JSON, judged decoded). It is how reports pass through the detector: a report is data,
// and redacted once, every format written from it holds no secret.
func (d *Detector) Strings(v any) {
	if d == nil {
		return
	}
	w := walker{d: d, seen: map[string]string{}}
	w.value(reflect.ValueOf(v))
}

// walker redacts the strings of one value; a report repeats its strings
// (tool names, URLs, checks), so each is judged once.
type walker struct {
	d    *Detector
	seen map[string]string
}

// text is the detector's Text of s, judged once per distinct s; raw JSON
// or a JSON text with escapes is judged string by string, decoded, as a
// JSON body's strings are (see decodedText).
func (w walker) text(s string) string {
	r, ok := w.seen[s]
	if !ok {
		r = w.d.decodedText(s, nil)
		w.seen[s] = r
	}
	return r
}

var byteSlice = reflect.TypeFor[[]byte]()

func (w walker) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			w.value(v.Elem())
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		switch e.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Interface:
			w.value(e) // what it points to is settable
		default:
			// A value held in an interface cannot be set in place (a
			// string, raw JSON, a struct): redact a copy and put it back.
			if !v.CanSet() {
				return
			}
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			w.value(c)
			v.Set(c)
		}
	case reflect.String:
		if v.CanSet() {
			if s := v.String(); len(s) >= 8 {
				if r := w.text(s); r != s {
					v.SetString(r)
				}
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				w.value(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type().ConvertibleTo(byteSlice) && v.Type().Elem().Kind() == reflect.Uint8 {
			if s := string(v.Bytes()); len(s) >= 8 && v.CanSet() {
				if r := w.text(s); r != s {
					v.SetBytes([]byte(r))
				}
			}
			return
		}
		for i := range v.Len() {
			w.value(v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			w.value(v.Index(i))
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			val := iter.Value()
			// Map values are not addressable: redact a copy and put it back.
			c := reflect.New(val.Type()).Elem()
			c.Set(val)
			w.value(c)
			v.SetMapIndex(iter.Key(), c)
		}
	}
}
