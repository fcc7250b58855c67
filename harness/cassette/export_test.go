package cassette

import "gopkg.in/yaml.v3"

// ParseBoth reads a cassette with the fast reader and with yaml.Unmarshal,
// for specs that compare them; fast is false when the fast reader declined.
func ParseBoth(data []byte) (fastFile, yamlFile any, fast bool, err error) {
	f, ok := parseFast(string(data))
	var y file
	err = yaml.Unmarshal(data, &y)
	return f, &y, ok, err
}

// File is the cassette file type, for benchmarks that decode it with other
// YAML libraries.
type File = file

// ParseFast reports whether the fast reader read data.
func ParseFast(data []byte) bool {
	_, ok := parseFast(string(data))
	return ok
}
