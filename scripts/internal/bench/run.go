package bench

import "fmt"

// Peer is one program (or way of running one) that a benchmark compares.
type Peer struct {
	Name string
	Run  func() (Cost, error)
}

// Runs holds each peer's costs, in the order they ran.
type Runs map[string][]Cost

// Order is the sequence Interleave runs peers in: round by round, each
// round every peer once, in the order given. Each entry is a peer's index.
func Order(rounds, peers int) []int {
	var o []int
	for r := 0; r < rounds; r++ {
		for p := 0; p < peers; p++ {
			o = append(o, p)
		}
	}
	return o
}

// Interleave runs the peers for the given rounds in Order and returns their
// costs. The first failed run stops it: the error names the peer and round.
func Interleave(rounds int, peers ...Peer) (Runs, error) {
	runs := Runs{}
	for i, p := range Order(rounds, len(peers)) {
		c, err := peers[p].Run()
		if err != nil {
			return runs, fmt.Errorf("%s, round %d: %w", peers[p].Name, i/len(peers)+1, err)
		}
		runs[peers[p].Name] = append(runs[peers[p].Name], c)
	}
	return runs, nil
}

// Stat summarizes one figure (see WallMS, CPUMS, RSSMB) of a peer's runs.
func (r Runs) Stat(peer string, figure func(Cost) float64) Stat {
	xs := make([]float64, len(r[peer]))
	for i, c := range r[peer] {
		xs[i] = figure(c)
	}
	return Summarize(xs)
}
