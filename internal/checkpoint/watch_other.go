//go:build !linux

package checkpoint

import (
	"context"
	"errors"
)

// watchReply: see watch_linux.go.
type watchReply struct {
	Token string
	Fresh bool
	Paths []string
}

// Watch needs inotify: elsewhere every checkpoint scans the whole tree.
func (s Store) Watch(ctx context.Context, root string, ready func(dirs int), warn func(string)) error {
	return errors.New("watching a directory needs Linux's inotify: every checkpoint scans the whole tree")
}

func (s Store) askWatcher(root, since string) (watchReply, bool) { return watchReply{}, false }
