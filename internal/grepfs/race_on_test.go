//go:build race

package grepfs

// raceOn: the tests run with -race, where a byte loop is ten times
// slower or more: the widest tables are cut.
const raceOn = true
