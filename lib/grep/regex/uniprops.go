package regex

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
)

// Rust's regex knows more \p{...} names than Go's parser (general
// categories and scripts by their exact names only): binary properties,
// long category names, and any spelling that matches loosely (case,
// spaces, '_' and '-' ignored, as Unicode's UAX44-LM3). unicodeProperty
// resolves those from Go's unicode tables, and the emoji properties
// (Emoji, Emoji_Presentation, Extended_Pictographic, ...) from
// emojiprops.go (scripts/gen-emoji-props).

// goKnowsProperty reports whether Go's parser reads \p{name} itself.
func goKnowsProperty(name string) bool {
	_, err := syntax.Parse(`\p{`+name+`}`, syntax.Perl)
	return err == nil
}

var (
	propsOnce   sync.Once
	propsByName map[string]func() []rune
)

// looseName is a property name as UAX44-LM3 compares them.
func looseName(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer(" ", "", "_", "", "-", "").Replace(s)
	if strings.HasPrefix(s, "is") && len(s) > 2 {
		if _, ok := propsByName[s]; !ok {
			s = s[2:]
		}
	}
	return s
}

// categoryNames are the long names of the general categories.
var categoryNames = map[string]string{
	"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
	"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo",
	"Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
	"Number": "N", "Decimal_Number": "Nd", "Digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd", "Open_Punctuation": "Ps",
	"Close_Punctuation": "Pe", "Initial_Punctuation": "Pi", "Final_Punctuation": "Pf", "Other_Punctuation": "Po",
	"Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So",
	"Separator": "Z", "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
	"Other": "C", "Control": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co",
}

// unsupportedProps are properties rg knows that agent-grep has no table for.
var unsupportedProps = []string{"Case_Ignorable", "Changes_When_Casefolded", "Changes_When_Casemapped", "Changes_When_Lowercased",
	"Changes_When_Titlecased", "Changes_When_Uppercased", "Default_Ignorable_Code_Point", "Grapheme_Base",
	"Grapheme_Link", "XID_Continue", "XID_Start", "Prepended_Concatenation_Mark", "Unassigned",
	"Script_Extensions", "Age", "Word_Break", "Sentence_Break", "Grapheme_Cluster_Break"}

func tableRanges(ts ...*unicode.RangeTable) []rune {
	var rs []rune
	for _, t := range ts {
		for _, r := range t.R16 {
			rs = appendStride(rs, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			rs = appendStride(rs, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	return normRanges(rs)
}

func appendStride(rs []rune, lo, hi, stride rune) []rune {
	if stride == 1 {
		return append(rs, lo, hi)
	}
	for c := lo; c <= hi; c += stride {
		rs = append(rs, c, c)
	}
	return rs
}

// minusRanges is a less b (both sorted).
func minusRanges(a, b []rune) []rune {
	top := rune(unicode.MaxRune)
	var both []rune
	both = append(both, complementRanges(a, top)...)
	both = append(both, b...)
	return complementRanges(normRanges(both), top)
}

func initProps() {
	propsByName = map[string]func() []rune{}
	add := func(name string, f func() []rune) { propsByName[looseName(name)] = f }
	for name, t := range unicode.Categories {
		add(name, func() []rune { return tableRanges(t) })
	}
	for long, short := range categoryNames {
		if t, ok := unicode.Categories[short]; ok {
			add(long, func() []rune { return tableRanges(t) })
		}
	}
	add("LC", func() []rune { return tableRanges(unicode.Lu, unicode.Ll, unicode.Lt) })
	add("Cased_Letter", func() []rune { return tableRanges(unicode.Lu, unicode.Ll, unicode.Lt) })
	for name, t := range unicode.Scripts {
		add(name, func() []rune { return tableRanges(t) })
	}
	for name, t := range unicode.Properties {
		add(name, func() []rune { return tableRanges(t) })
	}
	u := unicode.Properties
	add("Any", func() []rune { return []rune{0, unicode.MaxRune} })
	add("ASCII", func() []rune { return []rune{0, 0x7F} })
	add("Assigned", func() []rune {
		var all []*unicode.RangeTable
		for name, t := range unicode.Categories {
			if len(name) == 2 {
				all = append(all, t)
			}
		}
		return tableRanges(all...)
	})
	add("Alphabetic", func() []rune {
		return tableRanges(unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Nl, u["Other_Alphabetic"])
	})
	add("Lowercase", func() []rune { return tableRanges(unicode.Ll, u["Other_Lowercase"]) })
	add("Uppercase", func() []rune { return tableRanges(unicode.Lu, u["Other_Uppercase"]) })
	add("Cased", func() []rune {
		return tableRanges(unicode.Lu, unicode.Ll, unicode.Lt, u["Other_Lowercase"], u["Other_Uppercase"])
	})
	add("Math", func() []rune { return tableRanges(unicode.Sm, u["Other_Math"]) })
	add("Grapheme_Extend", func() []rune { return tableRanges(unicode.Me, unicode.Mn, u["Other_Grapheme_Extend"]) })
	idStart := func() []rune {
		return minusRanges(tableRanges(unicode.L, unicode.Nl, u["Other_ID_Start"]),
			tableRanges(u["Pattern_Syntax"], u["Pattern_White_Space"]))
	}
	add("ID_Start", idStart)
	add("ID_Continue", func() []rune {
		rs := append(idStart(), tableRanges(unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, u["Other_ID_Continue"])...)
		return minusRanges(normRanges(rs), tableRanges(u["Pattern_Syntax"], u["Pattern_White_Space"]))
	})
	add("space", func() []rune { return tableRanges(unicode.White_Space) })
	add("WSpace", func() []rune { return tableRanges(unicode.White_Space) })
	add("Emoji_Presentation", func() []rune { return emojiPresentation })
	add("EPres", func() []rune { return emojiPresentation })
	add("Extended_Pictographic", func() []rune { return extendedPictographic })
	add("ExtPict", func() []rune { return extendedPictographic })
	for _, e := range []struct {
		names []string
		rs    []rune
	}{{[]string{"Emoji"}, emoji}, {[]string{"Emoji_Component", "EComp"}, emojiComponent},
		{[]string{"Emoji_Modifier", "EMod"}, emojiModifier}, {[]string{"Emoji_Modifier_Base", "EBase"}, emojiModifierBase}} {
		for _, n := range e.names {
			add(n, func() []rune { return e.rs })
		}
	}
}

// unicodeProperty is the class \p{name} names, or rg's error.
func unicodeProperty(name string) ([]rune, error) {
	propsOnce.Do(initProps)
	key := looseName(name)
	if k, v, ok := strings.Cut(key, "="); ok {
		switch k {
		case "sc", "script", "gc", "generalcategory":
			key = looseName(v)
		default:
			key = "\x00" // not one we read
		}
	}
	if f, ok := propsByName[key]; ok {
		return f(), nil
	}
	for _, n := range unsupportedProps {
		if looseName(n) == key {
			//lint:ignore ST1005 worded as ripgrep's "Unicode property not found"
			return nil, fmt.Errorf("Unicode property %s is not supported by agent-grep (no table for it)", n)
		}
	}
	//lint:ignore ST1005 ripgrep's message, word for word
	return nil, errors.New("Unicode property not found")
}
