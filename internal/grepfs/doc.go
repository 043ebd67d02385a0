// Package grepfs is agent-grep's file system side: the walker, the reads
// of files, and the parallel Search over lib/grep's matcher. The walker
// (WalkFunc) reads directories ahead and ignore files for lib/grep's
// Filter, follows symlinks under -L and stays on one file system under
// --one-file-system; files are read with raw system calls when regular
// on a local file system and with the scheduler-aware ones otherwise
// (FIFOs, devices, NFS, FUSE), decompressed under -z; Search reads and
// searches files in parallel and hands the results back in path order.
package grepfs
