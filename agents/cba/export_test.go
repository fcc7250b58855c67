package cba

// Normals is the daily data of a climate answer.
type Normals = normals

// DecodeNormals decodes a climate answer as the climate normals tool does.
var DecodeNormals = decodeNormals

// FastNormals reports whether a climate answer is read without encoding/json.
func FastNormals(body []byte) bool {
	_, ok := fastNormals(body)
	return ok
}
