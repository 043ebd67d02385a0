package bench

import (
	"fmt"
	"time"
)

// Peer is one program (or way of running one) that a benchmark compares.
type Peer struct {
	Name string
	Run  func() (Cost, error)
	// Once, when above 0: a peer whose first run took longer (wall) runs
	// only that once.
	Once time.Duration
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
		if first := runs[peers[p].Name]; peers[p].Once > 0 && len(first) > 0 && first[0].Wall > peers[p].Once {
			continue
		}
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
	return Summarize(r.figures(peer, figure))
}

// Ratio is a's figure over b's round by round (the runs of a round shared
// the machine's load; see RoundRatios), printed by FmtRatio.
func (r Runs) Ratio(a, b string, figure func(Cost) float64) string {
	return RoundRatios(r.figures(a, figure), r.figures(b, figure)).FmtRatio()
}

func (r Runs) figures(peer string, figure func(Cost) float64) []float64 {
	xs := make([]float64, len(r[peer]))
	for i, c := range r[peer] {
		xs[i] = figure(c)
	}
	return xs
}

// Cells are a peer's wall, CPU (ms, prec decimals) and peak RSS (MB), each
// its median [min–max]: the columns of most tables.
func (r Runs) Cells(peer string, prec int) []string {
	return []string{r.Stat(peer, WallMS).Fmt(prec, "ms"), r.Stat(peer, CPUMS).Fmt(prec, "ms"), r.Stat(peer, RSSMB).Fmt(prec, "MB")}
}
