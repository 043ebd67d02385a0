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
	xs := make([]float64, len(r[peer]))
	for i, c := range r[peer] {
		xs[i] = figure(c)
	}
	return Summarize(xs)
}

// Ratios are a's figure over b's, round by round (the runs of a round
// shared the machine's load), for the rounds both ran and b's figure is
// above 0.
func (r Runs) Ratios(a, b string, figure func(Cost) float64) Stat {
	var xs []float64
	for i := range min(len(r[a]), len(r[b])) {
		if y := figure(r[b][i]); y > 0 {
			xs = append(xs, figure(r[a][i])/y)
		}
	}
	return Summarize(xs)
}

// Ratio is Ratios printed: the median "2.3x", then the spread over the
// rounds "[2.1–2.6]" when there were several; "-" when there is none.
func (r Runs) Ratio(a, b string, figure func(Cost) float64) string {
	s := r.Ratios(a, b, figure)
	if s.N == 0 {
		return "-"
	}
	v := Ratio(s.Median, 1)
	if s.N == 1 {
		return v
	}
	return fmt.Sprintf("%s [%.*f–%.*f]", v, ratioPrec(s.Min), s.Min, ratioPrec(s.Max), s.Max)
}

// Cells are a peer's wall, CPU (ms, prec decimals) and peak RSS (MB), each
// its median [min–max]: the columns of most tables.
func (r Runs) Cells(peer string, prec int) []string {
	return []string{r.Stat(peer, WallMS).Fmt(prec, "ms"), r.Stat(peer, CPUMS).Fmt(prec, "ms"), r.Stat(peer, RSSMB).Fmt(prec, "MB")}
}
