//go:build race

package grep

// raceOn: the tests run with -race (sync.Pool then drops items at random).
const raceOn = true
