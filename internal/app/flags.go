package app

import "github.com/urfave/cli/v2"

// urfave/cli/v2 works a flag's names out with a regexp each time it asks
// for them, and at start-up checks every flag against every other
// (runFlagActions → IsSet → lookupFlag): with a hundred flags that was half
// of a command's start-up, about 4 ms, paid by every stage of a pipeline.
// The wrappers below answer Names from a copy made once; every other method
// is the wrapped flag's own.

type boolFlag struct {
	*cli.BoolFlag
	names []string
}

func (f *boolFlag) Names() []string { return f.names }

type stringFlag struct {
	*cli.StringFlag
	names []string
}

func (f *stringFlag) Names() []string { return f.names }

type stringSliceFlag struct {
	*cli.StringSliceFlag
	names []string
}

func (f *stringSliceFlag) Names() []string { return f.names }

type intFlag struct {
	*cli.IntFlag
	names []string
}

func (f *intFlag) Names() []string { return f.names }

type float64Flag struct {
	*cli.Float64Flag
	names []string
}

func (f *float64Flag) Names() []string { return f.names }

type durationFlag struct {
	*cli.DurationFlag
	names []string
}

func (f *durationFlag) Names() []string { return f.names }

// cacheNames wraps the flags of fs in place.
func cacheNames(fs []cli.Flag) {
	for i, f := range fs {
		switch t := f.(type) {
		case *cli.BoolFlag:
			fs[i] = &boolFlag{t, t.Names()}
		case *cli.StringFlag:
			fs[i] = &stringFlag{t, t.Names()}
		case *cli.StringSliceFlag:
			fs[i] = &stringSliceFlag{t, t.Names()}
		case *cli.IntFlag:
			fs[i] = &intFlag{t, t.Names()}
		case *cli.Float64Flag:
			fs[i] = &float64Flag{t, t.Names()}
		case *cli.DurationFlag:
			fs[i] = &durationFlag{t, t.Names()}
		}
	}
}

// TakesValue reports whether a flag takes a value (every flag but a
// boolean one), wrapped or not.
func TakesValue(f cli.Flag) bool {
	tv, ok := f.(interface{ TakesValue() bool })
	return ok && tv.TakesValue()
}
