//go:build !linux

package main

// sealProc has nothing to do where there is no /proc.
func sealProc() error { return nil }
