package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is the schema compiler and the keyword checks (see doc.go).

// schema is one compiled (sub)schema.
type schema struct {
	always *bool // a boolean schema

	ref      *schema
	refOnly  bool // draft-07 and earlier: $ref siblings are ignored
	types    []string
	enum     []any
	hasEnum  bool
	constant any
	hasConst bool

	properties    map[string]*schema
	patternProps  []patternSchema
	additional    *schema
	propertyNames *schema
	required      []string
	depRequired   map[string][]string
	depSchemas    map[string]*schema
	minProps      int
	maxProps      int
	unevalProps   *schema

	prefix      []*schema
	items       *schema // the items after prefix
	contains    *schema
	minContains int
	maxContains int
	minItems    int
	maxItems    int
	unique      bool
	unevalItems *schema

	minLength, maxLength int
	pattern              *regexp.Regexp

	minimum, maximum, exclMin, exclMax, multipleOf *number

	allOf, anyOf, oneOf []*schema
	not                 *schema
	ifS, thenS, elseS   *schema
}

type patternSchema struct {
	re *regexp.Regexp
	s  *schema
}

// number is a schema bound: its value, the schema's spelling, and (for
// multipleOf) the exact fraction.
type number struct {
	d   decimal
	lit string
	r   *big.Rat
}

// compiler turns one schema document into schema nodes, resolving $ref
// inside the document.
type compiler struct {
	root    any
	legacy  bool               // draft-04/06/07 semantics
	byPtr   map[string]*schema // compiled nodes by JSON pointer
	ids     map[string]string  // $id (without fragment) → pointer
	anchors map[string]string  // $anchor → pointer
	rootID  string
}

// compileSchema compiles a schema document (JSON bytes).
func compileSchema(doc []byte) (*schema, error) {
	root, err := decodeJSON(doc)
	if err != nil {
		return nil, err
	}
	c := &compiler{root: root, byPtr: map[string]*schema{}, ids: map[string]string{}, anchors: map[string]string{}}
	if m, ok := root.(map[string]any); ok {
		if s, ok := m["$schema"].(string); ok {
			c.legacy = strings.Contains(s, "json-schema.org/draft-0")
		} else if _, has := m["$schema"]; has {
			return nil, errors.New("$schema: must be a string")
		}
		c.rootID = idOf(m, c.legacy)
	}
	c.scan(root, "", false)
	return c.compile(root, "")
}

func idOf(m map[string]any, legacy bool) string {
	for _, k := range []string{"$id", "id"} {
		if k == "id" && !legacy {
			continue
		}
		if s, ok := m[k].(string); ok {
			s, _, _ = strings.Cut(s, "#")
			return s
		}
	}
	return ""
}

// scan records the $id and $anchor locations of the document. names is
// true for a map of names to schemas (properties, $defs, ...), whose keys
// are not keywords: a property called "default" is a schema, not data.
func (c *compiler) scan(v any, ptr string, names bool) {
	switch x := v.(type) {
	case map[string]any:
		if names {
			for k, e := range x {
				c.scan(e, ptr+"/"+escapePtr(k), false)
			}
			return
		}
		if id := idOf(x, c.legacy); id != "" {
			if _, dup := c.ids[id]; !dup {
				c.ids[id] = ptr
			}
		}
		if a, ok := x["$anchor"].(string); ok {
			c.anchors[a] = ptr
		}
		if c.legacy {
			for _, k := range []string{"$id", "id"} {
				if s, ok := x[k].(string); ok && strings.HasPrefix(s, "#") && len(s) > 1 {
					c.anchors[s[1:]] = ptr
				}
			}
		}
		for k, e := range x {
			switch k {
			case "enum", "const", "default", "examples":
				continue // data, not schemas
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
				c.scan(e, ptr+"/"+escapePtr(k), true)
			default:
				c.scan(e, ptr+"/"+escapePtr(k), false)
			}
		}
	case []any:
		for i, e := range x {
			c.scan(e, ptr+"/"+strconv.Itoa(i), false)
		}
	}
}

func escapePtr(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// at is the value at a JSON pointer of the document.
func (c *compiler) at(ptr string) (any, bool) {
	v := c.root
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// resolve compiles the target of a $ref.
func (c *compiler) resolve(ref string) (*schema, error) {
	base, frag, _ := strings.Cut(ref, "#")
	ptr := ""
	if base != "" && base != c.rootID {
		p, ok := c.ids[base]
		if !ok {
			return nil, fmt.Errorf("$ref %q: remote schema not allowed", ref)
		}
		ptr = p
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	switch {
	case frag == "":
	case strings.HasPrefix(frag, "/"):
		ptr += frag
	default:
		p, ok := c.anchors[frag]
		if !ok {
			return nil, fmt.Errorf("$ref %q: no anchor %q in the schema", ref, frag)
		}
		ptr = p
	}
	v, ok := c.at(ptr)
	if !ok {
		return nil, fmt.Errorf("$ref %q: no such location in the schema", ref)
	}
	return c.compile(v, ptr)
}

func (c *compiler) compile(v any, ptr string) (*schema, error) {
	if s, ok := c.byPtr[ptr]; ok {
		return s, nil
	}
	s := &schema{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1, minLength: -1, maxLength: -1, minContains: -1, maxContains: -1}
	c.byPtr[ptr] = s // before the children, so a $ref cycle ends here
	if err := c.fill(s, v, ptr); err != nil {
		return nil, err
	}
	return s, nil
}

func (c *compiler) fill(s *schema, v any, ptr string) error {
	where := func(k string) string {
		if ptr == "" {
			return k
		}
		return ptr[1:] + "/" + k
	}
	bad := func(k, want string) error { return fmt.Errorf("%s: must be %s", where(k), want) }
	switch x := v.(type) {
	case bool:
		s.always = &x
		return nil
	case map[string]any:
	default:
		if ptr == "" {
			return errors.New("the schema must be an object or a boolean")
		}
		return fmt.Errorf("%s: must be an object or a boolean", ptr[1:])
	}
	m := v.(map[string]any)
	sub := func(k string) (*schema, error) {
		e, ok := m[k]
		if !ok {
			return nil, nil
		}
		return c.compile(e, ptr+"/"+escapePtr(k))
	}
	subMap := func(k string) (map[string]*schema, error) {
		e, ok := m[k]
		if !ok {
			return nil, nil
		}
		o, ok := e.(map[string]any)
		if !ok {
			return nil, bad(k, "an object")
		}
		out := map[string]*schema{}
		for name, el := range o {
			cs, err := c.compile(el, ptr+"/"+escapePtr(k)+"/"+escapePtr(name))
			if err != nil {
				return nil, err
			}
			out[name] = cs
		}
		return out, nil
	}
	subList := func(k string) ([]*schema, error) {
		e, ok := m[k]
		if !ok {
			return nil, nil
		}
		a, ok := e.([]any)
		if !ok || len(a) == 0 {
			return nil, bad(k, "a non-empty array")
		}
		out := make([]*schema, len(a))
		for i, el := range a {
			cs, err := c.compile(el, ptr+"/"+escapePtr(k)+"/"+strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			out[i] = cs
		}
		return out, nil
	}
	count := func(k string, dst *int) error {
		e, ok := m[k]
		if !ok {
			return nil
		}
		n, ok := e.(json.Number)
		if !ok {
			return bad(k, "a non-negative integer")
		}
		d, ok := parseDecimal(string(n))
		if !ok || !d.isInt() || d.sign() < 0 {
			return bad(k, "a non-negative integer")
		}
		*dst = math.MaxInt
		if d.bigExp == nil && d.exp <= 18 { // below 10^18: fits
			v, _ := strconv.ParseInt(d.digits+strings.Repeat("0", int(d.exp)-len(d.digits)), 10, 64)
			*dst = int(min(v, int64(math.MaxInt)))
		}
		return nil
	}
	num := func(k string) (*number, error) {
		e, ok := m[k]
		if !ok {
			return nil, nil
		}
		n, ok := e.(json.Number)
		if !ok {
			return nil, bad(k, "a number")
		}
		d, ok := parseDecimal(string(n))
		if !ok {
			return nil, bad(k, "a number")
		}
		return &number{d: d, lit: string(n)}, nil
	}
	var err error
	if r, ok := m["$ref"]; ok {
		ref, ok := r.(string)
		if !ok {
			return bad("$ref", "a string")
		}
		if s.ref, err = c.resolve(ref); err != nil {
			return err
		}
		if c.legacy {
			s.refOnly = true
			return nil
		}
	}
	if t, ok := m["type"]; ok {
		names, ok := stringList(t)
		if n, isName := t.(string); isName {
			names, ok = []string{n}, true
		}
		if !ok {
			return bad("type", "a type name or an array of them")
		}
		for _, n := range names {
			switch n {
			case "null", "boolean", "object", "array", "number", "integer", "string":
			default:
				return fmt.Errorf("%s: unknown type %q", where("type"), n)
			}
		}
		s.types = names
	}
	if e, ok := m["enum"]; ok {
		a, ok := e.([]any)
		if !ok {
			return bad("enum", "an array")
		}
		s.enum, s.hasEnum = a, true
	}
	if e, ok := m["const"]; ok {
		s.constant, s.hasConst = e, true
	}
	if s.properties, err = subMap("properties"); err != nil {
		return err
	}
	if e, ok := m["patternProperties"]; ok {
		o, ok := e.(map[string]any)
		if !ok {
			return bad("patternProperties", "an object")
		}
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			re, err := regexp.Compile(k)
			if err != nil {
				return fmt.Errorf("%s: %v", where("patternProperties"), err)
			}
			cs, err := c.compile(o[k], ptr+"/patternProperties/"+escapePtr(k))
			if err != nil {
				return err
			}
			s.patternProps = append(s.patternProps, patternSchema{re, cs})
		}
	}
	if e, ok := m["required"]; ok {
		if s.required, ok = stringList(e); !ok {
			return bad("required", "an array of strings")
		}
	}
	if e, ok := m["dependentRequired"]; ok {
		o, ok := e.(map[string]any)
		if !ok {
			return bad("dependentRequired", "an object")
		}
		s.depRequired = map[string][]string{}
		for k, v := range o {
			if s.depRequired[k], ok = stringList(v); !ok {
				return bad("dependentRequired", "an object of string arrays")
			}
		}
	}
	if s.depSchemas, err = subMap("dependentSchemas"); err != nil {
		return err
	}
	if e, ok := m["dependencies"]; ok { // draft-07: both in one keyword
		o, ok := e.(map[string]any)
		if !ok {
			return bad("dependencies", "an object")
		}
		for k, v := range o {
			if _, ok := v.([]any); ok {
				names, ok := stringList(v)
				if !ok {
					return bad("dependencies", "an object of schemas or string arrays")
				}
				if s.depRequired == nil {
					s.depRequired = map[string][]string{}
				}
				s.depRequired[k] = names
				continue
			}
			cs, err := c.compile(v, ptr+"/dependencies/"+escapePtr(k))
			if err != nil {
				return err
			}
			if s.depSchemas == nil {
				s.depSchemas = map[string]*schema{}
			}
			s.depSchemas[k] = cs
		}
	}
	// in a fixed order, so a schema with two bad keywords always names the same one
	for _, c := range []struct {
		k   string
		dst *int
	}{{"minProperties", &s.minProps}, {"maxProperties", &s.maxProps}, {"minItems", &s.minItems}, {"maxItems", &s.maxItems},
		{"minLength", &s.minLength}, {"maxLength", &s.maxLength}, {"minContains", &s.minContains}, {"maxContains", &s.maxContains}} {
		if err := count(c.k, c.dst); err != nil {
			return err
		}
	}
	if s.prefix, err = subList("prefixItems"); err != nil {
		return err
	}
	if it, ok := m["items"]; ok {
		if a, isArr := it.([]any); isArr {
			// The tuple form of draft-07 and earlier (also accepted without
			// $schema: MCP servers send it); additionalItems covers the rest.
			if len(a) == 0 {
				return bad("items", "a schema or a non-empty array")
			}
			if s.prefix, err = subList("items"); err != nil {
				return err
			}
			if s.items, err = sub("additionalItems"); err != nil {
				return err
			}
		} else if s.items, err = sub("items"); err != nil {
			return err
		}
	}
	if e, ok := m["uniqueItems"]; ok {
		b, ok := e.(bool)
		if !ok {
			return bad("uniqueItems", "a boolean")
		}
		s.unique = b
	}
	if e, ok := m["pattern"]; ok {
		p, ok := e.(string)
		if !ok {
			return bad("pattern", "a string")
		}
		if s.pattern, err = regexp.Compile(p); err != nil {
			return fmt.Errorf("%s: %v", where("pattern"), err)
		}
	}
	if s.minimum, err = num("minimum"); err != nil {
		return err
	}
	if s.maximum, err = num("maximum"); err != nil {
		return err
	}
	for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
		dst, bound := &s.exclMin, &s.minimum
		if k == "exclusiveMaximum" {
			dst, bound = &s.exclMax, &s.maximum
		}
		if b, ok := m[k].(bool); ok { // draft-04: a flag on minimum/maximum
			if b && *bound != nil {
				*dst, *bound = *bound, nil
			}
			continue
		}
		if *dst, err = num(k); err != nil {
			return err
		}
	}
	if s.multipleOf, err = num("multipleOf"); err != nil {
		return err
	}
	if s.multipleOf != nil {
		if s.multipleOf.d.sign() <= 0 {
			return bad("multipleOf", "a number > 0")
		}
		var ok bool
		if s.multipleOf.r, ok = new(big.Rat).SetString(s.multipleOf.lit); !ok {
			return bad("multipleOf", "a number with an exponent within ±1000000")
		}
	}
	for _, c := range []struct {
		k   string
		dst *[]*schema
	}{{"allOf", &s.allOf}, {"anyOf", &s.anyOf}, {"oneOf", &s.oneOf}} {
		if *c.dst, err = subList(c.k); err != nil {
			return err
		}
	}
	for _, c := range []struct {
		k   string
		dst **schema
	}{{"additionalProperties", &s.additional}, {"propertyNames", &s.propertyNames}, {"unevaluatedProperties", &s.unevalProps},
		{"contains", &s.contains}, {"unevaluatedItems", &s.unevalItems},
		{"not", &s.not}, {"if", &s.ifS}, {"then", &s.thenS}, {"else", &s.elseS}} {
		if *c.dst, err = sub(c.k); err != nil {
			return err
		}
	}
	return nil
}

// stringList reads an array of strings (nil for an empty one).
func stringList(v any) ([]string, bool) {
	a, ok := v.([]any)
	if !ok {
		return nil, false
	}
	var out []string
	for _, e := range a {
		n, ok := e.(string)
		if !ok {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// schemaError is one failed keyword at an instance location.
type schemaError struct {
	loc  []string
	kind string   // the keyword
	want []string // type: the wanted types; required: the missing names; additionalProperties: the extra names
	arg  string   // the bound or pattern, or the message of kinds without one
}

// evaluated is what a successful validation looked at (for unevaluated*).
type evaluated struct {
	props    map[string]bool
	items    int  // the first items evaluated
	allItems bool // every item evaluated
}

func (e *evaluated) merge(o evaluated) {
	for k := range o.props {
		if e.props == nil {
			e.props = map[string]bool{}
		}
		e.props[k] = true
	}
	e.items = max(e.items, o.items)
	e.allItems = e.allItems || o.allItems
}

// maxDepth bounds schema recursion that does not descend into the
// instance ({"$ref":"#"}).
const maxDepth = 200

func child(loc []string, tok string) []string {
	out := make([]string, len(loc)+1)
	copy(out, loc)
	out[len(loc)] = tok
	return out
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if d, ok := parseDecimal(string(x)); ok && d.isInt() {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// typeMatches reports whether a value of JSON type t (as jsonType names it)
// is one of the schema types want: an integer is also a number.
func typeMatches(t string, want []string) bool {
	for _, w := range want {
		if w == t || w == "number" && t == "integer" {
			return true
		}
	}
	return false
}

// validate checks inst (at loc) against s and returns the failed keywords
// (leaves only) and what was evaluated.
func (s *schema) validate(inst any, loc []string, depth int) ([]schemaError, evaluated) {
	var ev evaluated
	if depth > maxDepth {
		return []schemaError{{loc: loc, kind: "$ref", arg: "schema recursion too deep"}}, ev
	}
	if s.always != nil {
		if *s.always {
			return nil, evaluated{allItems: true, props: allKeys(inst)}
		}
		return []schemaError{{loc: loc, kind: "false", arg: "boolean schema is false"}}, ev
	}
	var errs []schemaError
	fail := func(e schemaError) { e.loc = loc; errs = append(errs, e) }
	if s.ref != nil {
		es, rev := s.ref.validate(inst, loc, depth+1)
		errs = append(errs, es...)
		if len(es) == 0 {
			ev.merge(rev)
		}
		if s.refOnly {
			return errs, ev
		}
	}
	if s.types != nil && !typeMatches(jsonType(inst), s.types) {
		fail(schemaError{kind: "type", want: s.types})
	}
	if s.hasEnum {
		ok := false
		for _, e := range s.enum {
			if jsonEqual(inst, e) {
				ok = true
				break
			}
		}
		if !ok {
			fail(schemaError{kind: "enum"})
		}
	}
	if s.hasConst && !jsonEqual(inst, s.constant) {
		fail(schemaError{kind: "const"})
	}
	switch x := inst.(type) {
	case map[string]any:
		errs = append(errs, s.object(x, loc, depth, &ev)...)
	case []any:
		errs = append(errs, s.array(x, loc, depth, &ev)...)
	case string:
		n := -1
		if s.minLength >= 0 || s.maxLength >= 0 {
			n = utf8.RuneCountInString(x)
		}
		if s.minLength >= 0 && n < s.minLength {
			fail(schemaError{kind: "minLength", arg: strconv.Itoa(s.minLength)})
		}
		if s.maxLength >= 0 && n > s.maxLength {
			fail(schemaError{kind: "maxLength", arg: strconv.Itoa(s.maxLength)})
		}
		if s.pattern != nil && !s.pattern.MatchString(x) {
			fail(schemaError{kind: "pattern", arg: s.pattern.String()})
		}
	case json.Number:
		if d, ok := parseDecimal(string(x)); ok {
			if s.minimum != nil && d.cmp(s.minimum.d) < 0 {
				fail(schemaError{kind: "minimum", arg: s.minimum.lit})
			}
			if s.maximum != nil && d.cmp(s.maximum.d) > 0 {
				fail(schemaError{kind: "maximum", arg: s.maximum.lit})
			}
			if s.exclMin != nil && d.cmp(s.exclMin.d) <= 0 {
				fail(schemaError{kind: "exclusiveMinimum", arg: s.exclMin.lit})
			}
			if s.exclMax != nil && d.cmp(s.exclMax.d) >= 0 {
				fail(schemaError{kind: "exclusiveMaximum", arg: s.exclMax.lit})
			}
			if s.multipleOf != nil && !d.multipleOf(s.multipleOf.r) {
				fail(schemaError{kind: "multipleOf", arg: s.multipleOf.lit})
			}
		}
	}
	_, allOfErrs := branches(s.allOf, inst, loc, depth, &ev)
	errs = append(errs, allOfErrs...)
	if n, es := branches(s.anyOf, inst, loc, depth, &ev); len(s.anyOf) > 0 && n == 0 {
		errs = append(errs, es...)
	}
	switch n, es := branches(s.oneOf, inst, loc, depth, &ev); {
	case len(s.oneOf) > 0 && n == 0:
		errs = append(errs, es...)
	case n > 1:
		fail(schemaError{kind: "oneOf", arg: "must match exactly one schema in oneOf"})
	}
	if s.not != nil {
		if es, _ := s.not.validate(inst, loc, depth+1); len(es) == 0 {
			fail(schemaError{kind: "not", arg: "must NOT be valid"})
		}
	}
	if s.ifS != nil {
		es, iev := s.ifS.validate(inst, loc, depth+1)
		branch := s.elseS
		if len(es) == 0 {
			ev.merge(iev)
			branch = s.thenS
		}
		if branch != nil {
			bes, bev := branch.validate(inst, loc, depth+1)
			errs = append(errs, bes...)
			if len(bes) == 0 {
				ev.merge(bev)
			}
		}
	}
	// unevaluated* last: they see what every other keyword evaluated.
	switch x := inst.(type) {
	case map[string]any:
		if s.unevalProps != nil {
			for _, k := range sortedKeys(x) {
				if ev.props[k] {
					continue
				}
				es, _ := s.unevalProps.validate(x[k], child(loc, k), depth+1)
				if len(es) > 0 && s.unevalProps.always != nil {
					fail(schemaError{kind: "unevaluatedProperties", want: []string{k}})
				} else {
					errs = append(errs, es...)
				}
			}
			ev.props = allKeys(x)
		}
	case []any:
		if s.unevalItems != nil && !ev.allItems {
			for i := ev.items; i < len(x); i++ {
				es, _ := s.unevalItems.validate(x[i], child(loc, strconv.Itoa(i)), depth+1)
				if len(es) > 0 && s.unevalItems.always != nil {
					fail(schemaError{kind: "unevaluatedItems", arg: strconv.Itoa(ev.items)})
					break
				}
				errs = append(errs, es...)
			}
			ev.allItems = true
		}
	}
	return errs, ev
}

// branches validates inst against each schema of list (allOf, anyOf,
// oneOf): how many matched, the errors of those that did not, and what the
// matching ones evaluated merged into ev.
func branches(list []*schema, inst any, loc []string, depth int, ev *evaluated) (int, []schemaError) {
	n := 0
	var errs []schemaError
	for _, a := range list {
		es, aev := a.validate(inst, loc, depth+1)
		if len(es) == 0 {
			n++
			ev.merge(aev)
		} else {
			errs = append(errs, es...)
		}
	}
	return n, errs
}

func (s *schema) object(x map[string]any, loc []string, depth int, ev *evaluated) []schemaError {
	var errs []schemaError
	fail := func(e schemaError) { e.loc = loc; errs = append(errs, e) }
	var missing []string
	for _, r := range s.required {
		if _, ok := x[r]; !ok {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		fail(schemaError{kind: "required", want: missing})
	}
	if s.minProps >= 0 && len(x) < s.minProps {
		fail(schemaError{kind: "minProperties", arg: strconv.Itoa(s.minProps)})
	}
	if s.maxProps >= 0 && len(x) > s.maxProps {
		fail(schemaError{kind: "maxProperties", arg: strconv.Itoa(s.maxProps)})
	}
	keys := sortedKeys(x)
	for _, k := range keys {
		if deps, ok := s.depRequired[k]; ok {
			for _, d := range deps {
				if _, ok := x[d]; !ok {
					fail(schemaError{kind: "dependentRequired", want: []string{d, k}})
				}
			}
		}
		if ds, ok := s.depSchemas[k]; ok {
			es, dev := ds.validate(x, loc, depth+1)
			errs = append(errs, es...)
			if len(es) == 0 {
				ev.merge(dev)
			}
		}
	}
	var extra []string
	for _, k := range keys {
		v := x[k]
		if s.propertyNames != nil {
			if es, _ := s.propertyNames.validate(k, loc, depth+1); len(es) > 0 {
				fail(schemaError{kind: "propertyNames", arg: fmt.Sprintf("property name '%s' is invalid", k)})
			}
		}
		known := false
		if ps, ok := s.properties[k]; ok {
			known = true
			errs = append(errs, validateAt(ps, v, child(loc, k), depth)...)
		}
		for _, pp := range s.patternProps {
			if pp.re.MatchString(k) {
				known = true
				errs = append(errs, validateAt(pp.s, v, child(loc, k), depth)...)
			}
		}
		if known {
			mark(ev, k)
			continue
		}
		if s.additional != nil {
			mark(ev, k)
			if s.additional.always != nil && !*s.additional.always {
				extra = append(extra, k)
				continue
			}
			errs = append(errs, validateAt(s.additional, v, child(loc, k), depth)...)
		}
	}
	if len(extra) > 0 {
		fail(schemaError{kind: "additionalProperties", want: extra})
	}
	return errs
}

func mark(ev *evaluated, k string) {
	if ev.props == nil {
		ev.props = map[string]bool{}
	}
	ev.props[k] = true
}

func validateAt(s *schema, v any, loc []string, depth int) []schemaError {
	es, _ := s.validate(v, loc, depth+1)
	return es
}

func (s *schema) array(x []any, loc []string, depth int, ev *evaluated) []schemaError {
	var errs []schemaError
	fail := func(e schemaError) { e.loc = loc; errs = append(errs, e) }
	if s.minItems >= 0 && len(x) < s.minItems {
		fail(schemaError{kind: "minItems", arg: strconv.Itoa(s.minItems)})
	}
	if s.maxItems >= 0 && len(x) > s.maxItems {
		fail(schemaError{kind: "maxItems", arg: strconv.Itoa(s.maxItems)})
	}
	if s.unique {
	outer:
		for j := 1; j < len(x); j++ {
			for i := 0; i < j; i++ {
				if jsonEqual(x[i], x[j]) {
					fail(schemaError{kind: "uniqueItems", arg: fmt.Sprintf("must NOT have duplicate items (items ## %d and %d are identical)", j, i)})
					break outer
				}
			}
		}
	}
	for i, ps := range s.prefix {
		if i >= len(x) {
			break
		}
		errs = append(errs, validateAt(ps, x[i], child(loc, strconv.Itoa(i)), depth)...)
	}
	ev.items = max(ev.items, min(len(s.prefix), len(x)))
	if s.items != nil && len(x) > len(s.prefix) {
		if s.items.always != nil && !*s.items.always {
			fail(schemaError{kind: "maxItems", arg: strconv.Itoa(len(s.prefix))})
		} else {
			for i := len(s.prefix); i < len(x); i++ {
				errs = append(errs, validateAt(s.items, x[i], child(loc, strconv.Itoa(i)), depth)...)
			}
		}
	}
	if s.items != nil {
		ev.allItems = true
	}
	if s.contains != nil {
		n := 0
		for _, e := range x {
			if es, _ := s.contains.validate(e, loc, depth+1); len(es) == 0 {
				n++
			}
		}
		lo := 1
		if s.minContains >= 0 {
			lo = s.minContains
		}
		if n < lo {
			fail(schemaError{kind: "contains", arg: fmt.Sprintf("must contain at least %d valid item(s)", lo)})
		}
		if s.maxContains >= 0 && n > s.maxContains {
			fail(schemaError{kind: "contains", arg: fmt.Sprintf("must contain at most %d valid item(s)", s.maxContains)})
		}
	}
	return errs
}

func allKeys(v any) map[string]bool {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// jsonEqual is JSON value equality (numbers by value).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		dx, ok1 := parseDecimal(string(x))
		dy, ok2 := parseDecimal(string(y))
		return ok1 && ok2 && dx.cmp(dy) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// decodeJSON decodes exactly one JSON value, numbers as json.Number.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}
