//go:build race

package printer

// raceOn: the tests run with -race (sync.Pool then drops items at random).
const raceOn = true
