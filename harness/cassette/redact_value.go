package cassette

import "reflect"

// Strings redacts, in place, every string reachable from v (a pointer):
// in struct fields (exported ones), slices, arrays, maps (values and the
// strings inside them) and interfaces, and every byte slice as text (raw
// JSON). It is how reports pass through the detector: a report is data,
// and redacted once, every format written from it holds no secret.
func (d *Detector) Strings(v any) {
	if d == nil {
		return
	}
	d.value(reflect.ValueOf(v))
}

var byteSlice = reflect.TypeFor[[]byte]()

func (d *Detector) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			if v.Kind() == reflect.Interface && v.Elem().Kind() == reflect.String && v.CanSet() {
				if s := v.Elem().String(); len(s) >= 8 {
					if r := d.Text(s); r != s {
						v.Set(reflect.ValueOf(r).Convert(v.Elem().Type()))
					}
				}
				return
			}
			d.value(v.Elem())
		}
	case reflect.String:
		if v.CanSet() {
			if s := v.String(); len(s) >= 8 {
				if r := d.Text(s); r != s {
					v.SetString(r)
				}
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				d.value(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type().ConvertibleTo(byteSlice) && v.Type().Elem().Kind() == reflect.Uint8 {
			if s := string(v.Bytes()); len(s) >= 8 && v.CanSet() {
				if r := d.Text(s); r != s {
					v.SetBytes([]byte(r))
				}
			}
			return
		}
		for i := range v.Len() {
			d.value(v.Index(i))
		}
	case reflect.Array:
		for i := range v.Len() {
			d.value(v.Index(i))
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			val := iter.Value()
			// Map values are not addressable: redact a copy and put it back.
			c := reflect.New(val.Type()).Elem()
			c.Set(val)
			d.value(c)
			v.SetMapIndex(iter.Key(), c)
		}
	}
}
